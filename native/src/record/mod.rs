//! Record batches: the v2 header, validation, compression codecs and producer state.

pub mod batch;
