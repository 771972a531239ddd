# cython: language_level=3, annotation_typing=False, binding=False
# The compiled twin of the protocol codec: the very same source as the pure-Python `_codec.py`
# (selected with FERROLOG_PURE_PYTHON=1), so the two cannot drift apart. Annotation typing is
# off so that the annotations keep their plain-Python meaning (e.g. `int` accepts bool) and
# both twins accept exactly the same values.
include "_codec.py"
