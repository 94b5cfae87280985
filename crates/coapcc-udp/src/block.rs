//! RFC 7959 block-wise transfer: the Block1/Block2 option value (with RFC 8323's BERT) and
//! slicing a body into blocks, from `coapcc-proto` (the endpoint's automatic answer and the
//! simulator use the same).

pub use coapcc_proto::block::{
    BERT_SZX, Block, MAX_SZX, block2_follows, range, range_at, size_of_szx, slice, szx_at_most,
};
