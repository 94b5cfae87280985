//! The stream decoder: bytes in arbitrary chunks in, whole messages out (RFC 8323 §3.2).
//!
//! A chunk may hold part of a frame, one frame, or several and a part. A frame longer than the
//! configured maximum is refused as soon as its length field is complete, before its body is
//! buffered, so a peer can make the decoder hold at most one maximum-sized frame plus the
//! chunk being read. After an error the stream cannot be resynchronised: every later call
//! returns the same error.

use bytes::{Buf, BytesMut};

use super::frame::{self, FrameError, TcpMessage};

/// Splits a byte stream into CoAP-over-TCP messages.
#[derive(Debug)]
pub struct StreamDecoder {
    buf: BytesMut,
    max_message_bytes: u64,
    failed: Option<FrameError>,
}

impl StreamDecoder {
    /// A decoder refusing frames longer than `max_message_bytes` (the Max-Message-Size this
    /// side announced, RFC 8323 §5.3.1).
    pub fn new(max_message_bytes: u32) -> StreamDecoder {
        StreamDecoder { buf: BytesMut::new(), max_message_bytes: u64::from(max_message_bytes), failed: None }
    }

    /// Appends bytes read from the stream.
    pub fn push(&mut self, bytes: &[u8]) {
        if self.failed.is_none() {
            self.buf.extend_from_slice(bytes);
        }
    }

    /// Bytes received and not yet returned as a message.
    pub fn buffered_bytes(&self) -> usize {
        self.buf.len()
    }

    /// The next whole message: `Ok(None)` while the buffered bytes end inside a frame.
    pub fn next_message(&mut self) -> Result<Option<TcpMessage>, FrameError> {
        if let Some(e) = self.failed {
            return Err(e);
        }
        let result = self.next_inner();
        if let Err(e) = result {
            self.failed = Some(e);
            self.buf = BytesMut::new();
        }
        result
    }

    fn next_inner(&mut self) -> Result<Option<TcpMessage>, FrameError> {
        let Some(h) = frame::header(&self.buf)? else { return Ok(None) };
        let bytes = h.frame_bytes();
        if bytes > self.max_message_bytes {
            return Err(FrameError::TooLarge { bytes, max: self.max_message_bytes });
        }
        // Within max_message_bytes (a u32), so it fits a usize.
        let len = bytes as usize;
        if self.buf.len() < len {
            // Room for the rest of the frame at once, not chunk by chunk.
            self.buf.reserve(len - self.buf.len());
            return Ok(None);
        }
        let msg = frame::decode(&self.buf[..len])?;
        self.buf.advance(len);
        Ok(Some(msg))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::{Code, Payload, Token};

    fn frames() -> (Vec<TcpMessage>, Vec<u8>) {
        let mut get = TcpMessage::new(Code::GET);
        get.token = Token::new(&[1, 2]).unwrap();
        get.add_option(crate::message::option::URI_PATH, b"data");
        let mut big = TcpMessage::new(Code::CONTENT);
        big.payload = Payload::from(vec![7u8; 300]);
        let ping = TcpMessage { token: Token::new(&[0x42]).unwrap(), ..TcpMessage::new(Code(0xe2)) };
        let msgs = vec![get, big, ping];
        let bytes = msgs.iter().flat_map(|m| frame::encode(m).unwrap()).collect();
        (msgs, bytes)
    }

    #[test]
    fn messages_come_out_whole_whatever_the_chunks() {
        let (msgs, bytes) = frames();
        for chunk in [1, 2, 3, 7, 64, bytes.len()] {
            let mut d = StreamDecoder::new(1152);
            let mut out = Vec::new();
            for c in bytes.chunks(chunk) {
                d.push(c);
                while let Some(m) = d.next_message().unwrap() {
                    out.push(m);
                }
            }
            assert_eq!(out, msgs, "chunks of {chunk} bytes");
            assert_eq!(d.buffered_bytes(), 0);
        }
    }

    #[test]
    fn a_frame_over_the_maximum_is_refused_from_its_length_field_alone() {
        // Len 14, extension 0x0100: body 269 + 256 = 525 bytes; frame 1 + 2 + 1 + 0 + 525 = 529.
        let mut d = StreamDecoder::new(528);
        d.push(&[0xe0, 0x01]);
        assert_eq!(d.next_message(), Ok(None));
        d.push(&[0x00]);
        assert_eq!(d.next_message(), Err(FrameError::TooLarge { bytes: 529, max: 528 }));
        d.push(&[0x45]);
        assert_eq!(d.next_message(), Err(FrameError::TooLarge { bytes: 529, max: 528 }), "the error sticks");
        assert_eq!(d.buffered_bytes(), 0, "nothing more is buffered after an error");
    }
}
