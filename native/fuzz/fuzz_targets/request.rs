//! A request frame (header and body, without the size prefix) as the native server decodes
//! the APIs it serves itself, at the versions it routes to its own decoders (`route`); any
//! other request is decoded by the control plane, so only its header is read here.
#![no_main]

use bytes::Bytes;
use ferrolog_native::protocol::{decode_request, peek_header, route, Route};
use kafka_protocol::messages::{
    ApiVersionsRequest, FetchRequest, ListOffsetsRequest, OffsetForLeaderEpochRequest,
    ProduceRequest,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some(peek) = peek_header(data) else {
        return;
    };
    let frame = Bytes::copy_from_slice(data);
    if route(peek.api_key, peek.api_version) != Route::Native {
        drop(decode_request::<ApiVersionsRequest>(frame));
        return;
    }
    match peek.api_key {
        0 => drop(decode_request::<ProduceRequest>(frame)),
        1 => drop(decode_request::<FetchRequest>(frame)),
        2 => drop(decode_request::<ListOffsetsRequest>(frame)),
        23 => drop(decode_request::<OffsetForLeaderEpochRequest>(frame)),
        _ => unreachable!("route() sends only these natively"),
    }
});
