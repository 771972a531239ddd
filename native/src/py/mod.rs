//! The Python extension module `ferrolog_native` (the only module that uses pyo3).
