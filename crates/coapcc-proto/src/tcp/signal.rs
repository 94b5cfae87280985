//! RFC 8323 §5: the signalling messages (codes 7.xx) and their options.
//!
//! | code | message | options (number, format, length) |
//! |---|---|---|
//! | 7.01 | CSM (§5.3) | Max-Message-Size (2, uint, 0–4; base value 1152), Block-Wise-Transfer (4, empty) |
//! | 7.02 | Ping (§5.4) | Custody (2, empty) |
//! | 7.03 | Pong (§5.4) | Custody (2, empty) |
//! | 7.04 | Release (§5.5) | Alternative-Address (2, string 1–255, repeatable), Hold-Off (4, uint 0–3, seconds) |
//! | 7.05 | Abort (§5.6) | Bad-CSM-Option (2, uint 0–2) |
//!
//! Option numbers are per code (§5.2). An unknown elective (even) option is ignored; an
//! unknown critical (odd) one, or a known one whose value is out of its format, is an error
//! the receiver answers with an Abort (§5.2; for a CSM, the Abort names the option in
//! Bad-CSM-Option, §5.6). A non-repeatable option given twice counts once (its first value,
//! RFC 7252 §5.4.5). The payload of Release and Abort is a diagnostic (RFC 7252 §5.5.2).

use crate::message::{Code, Payload, Token, decode_uint, encode_uint};

use super::frame::TcpMessage;

/// 7.01 Capabilities and Settings Message.
pub const CSM: Code = Code(0xe1);
/// 7.02 Ping.
pub const PING: Code = Code(0xe2);
/// 7.03 Pong.
pub const PONG: Code = Code(0xe3);
/// 7.04 Release.
pub const RELEASE: Code = Code(0xe4);
/// 7.05 Abort.
pub const ABORT: Code = Code(0xe5);

/// Max-Message-Size (CSM option 2, §5.3.1).
pub const MAX_MESSAGE_SIZE: u16 = 2;
/// Block-Wise-Transfer (CSM option 4, §5.3.2).
pub const BLOCK_WISE_TRANSFER: u16 = 4;
/// Custody (Ping/Pong option 2, §5.4.1).
pub const CUSTODY: u16 = 2;
/// Alternative-Address (Release option 2, §5.5).
pub const ALTERNATIVE_ADDRESS: u16 = 2;
/// Hold-Off (Release option 4, §5.5).
pub const HOLD_OFF: u16 = 4;
/// Bad-CSM-Option (Abort option 2, §5.6).
pub const BAD_CSM_OPTION: u16 = 2;

/// The base value of Max-Message-Size (§5.3.1, RFC 7252 §4.6): in force until a CSM says
/// otherwise.
pub const BASE_MAX_MESSAGE_SIZE: u32 = 1152;

/// Whether `code` is a signalling code (7.00–7.31, §5.1).
pub fn is_signal(code: Code) -> bool {
    code.class() == 7
}

/// A CSM's options (§5.3): each is absent when the CSM does not carry it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Csm {
    /// Max-Message-Size, bytes.
    pub max_message_size: Option<u32>,
    /// Block-Wise-Transfer: the sender supports RFC 7959 (and BERT when its Max-Message-Size is
    /// above 1152, §5.3.2).
    pub block_wise_transfer: bool,
}

/// A signalling message (§5).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Signal {
    /// 7.01 CSM.
    Csm(Csm),
    /// 7.02 Ping; `custody`: the Pong should wait until every earlier request is answered.
    Ping {
        /// Custody asked for.
        custody: bool,
    },
    /// 7.03 Pong; `custody`: every request received before the Ping has been processed.
    Pong {
        /// Custody given.
        custody: bool,
    },
    /// 7.04 Release: the sender wants the connection closed in an orderly way.
    Release {
        /// Alternative-Address values (authorities to reconnect to).
        alternative_addresses: Vec<String>,
        /// Hold-Off: do not reconnect for this many seconds.
        hold_off_s: Option<u32>,
        /// The diagnostic payload.
        diagnostic: String,
    },
    /// 7.05 Abort: the sender is closing the connection now.
    Abort {
        /// Bad-CSM-Option: the CSM option the sender could not process.
        bad_csm_option: Option<u16>,
        /// The diagnostic payload.
        diagnostic: String,
    },
}

/// Why a signalling message cannot be processed: the receiver aborts the connection (§5.2).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SignalError {
    /// A critical option the receiver does not know.
    #[error("signal {code:?} carries the unknown critical option {number}")]
    UnknownCritical {
        /// The signal's code.
        code: Code,
        /// The option.
        number: u16,
    },
    /// A known option whose value is not of its format or length.
    #[error("signal {code:?}: option {number} has a value of {len} bytes (allowed {min}-{max})")]
    BadValue {
        /// The signal's code.
        code: Code,
        /// The option.
        number: u16,
        /// Its length, bytes.
        len: usize,
        /// Shortest allowed, bytes.
        min: usize,
        /// Longest allowed, bytes.
        max: usize,
    },
    /// A signalling code that is not 7.01–7.05.
    #[error("unknown signalling code {0:?}")]
    UnknownCode(Code),
}

impl SignalError {
    /// The CSM option to name in Bad-CSM-Option when this error is about a CSM.
    pub fn bad_csm_option(&self) -> Option<u16> {
        match self {
            SignalError::UnknownCritical { code, number } | SignalError::BadValue { code, number, .. }
                if *code == CSM =>
            {
                Some(*number)
            }
            _ => None,
        }
    }
}

/// The options `code` understands: number, shortest and longest value.
fn known_options(code: Code) -> &'static [(u16, usize, usize)] {
    match code {
        CSM => &[(MAX_MESSAGE_SIZE, 0, 4), (BLOCK_WISE_TRANSFER, 0, 0)],
        PING | PONG => &[(CUSTODY, 0, 0)],
        RELEASE => &[(ALTERNATIVE_ADDRESS, 1, 255), (HOLD_OFF, 0, 3)],
        ABORT => &[(BAD_CSM_OPTION, 0, 2)],
        _ => &[],
    }
}

impl Signal {
    /// Reads the signal in `msg` (a message with a 7.xx code).
    pub fn parse(msg: &TcpMessage) -> Result<Signal, SignalError> {
        let code = msg.code;
        if !matches!(code, CSM | PING | PONG | RELEASE | ABORT) {
            return Err(SignalError::UnknownCode(code));
        }
        let known = known_options(code);
        for o in &msg.options {
            match known.iter().find(|(n, ..)| *n == o.number) {
                Some(&(number, min, max)) if !(min..=max).contains(&o.value.len()) => {
                    return Err(SignalError::BadValue { code, number, len: o.value.len(), min, max });
                }
                Some(_) => {}
                None if o.number & 1 == 1 => return Err(SignalError::UnknownCritical { code, number: o.number }),
                None => {}
            }
        }
        let has = |n: u16| msg.option(n).is_some();
        let uint = |n: u16| msg.option(n).and_then(decode_uint);
        let diagnostic = || String::from_utf8_lossy(&msg.payload).into_owned();
        Ok(match code {
            CSM => Signal::Csm(Csm {
                max_message_size: uint(MAX_MESSAGE_SIZE),
                block_wise_transfer: has(BLOCK_WISE_TRANSFER),
            }),
            PING => Signal::Ping { custody: has(CUSTODY) },
            PONG => Signal::Pong { custody: has(CUSTODY) },
            RELEASE => Signal::Release {
                alternative_addresses: msg
                    .options
                    .iter()
                    .filter(|o| o.number == ALTERNATIVE_ADDRESS)
                    .map(|o| String::from_utf8_lossy(&o.value).into_owned())
                    .collect(),
                hold_off_s: uint(HOLD_OFF),
                diagnostic: diagnostic(),
            },
            _ => Signal::Abort {
                bad_csm_option: uint(BAD_CSM_OPTION).and_then(|n| u16::try_from(n).ok()),
                diagnostic: diagnostic(),
            },
        })
    }

    /// The signal's code.
    pub fn code(&self) -> Code {
        match self {
            Signal::Csm(_) => CSM,
            Signal::Ping { .. } => PING,
            Signal::Pong { .. } => PONG,
            Signal::Release { .. } => RELEASE,
            Signal::Abort { .. } => ABORT,
        }
    }

    /// The message carrying this signal with `token`.
    pub fn to_message(&self, token: Token) -> TcpMessage {
        let mut m = TcpMessage { token, ..TcpMessage::new(self.code()) };
        match self {
            Signal::Csm(c) => {
                if let Some(size) = c.max_message_size {
                    m.add_option(MAX_MESSAGE_SIZE, encode_uint(size));
                }
                if c.block_wise_transfer {
                    m.add_option(BLOCK_WISE_TRANSFER, []);
                }
            }
            Signal::Ping { custody } | Signal::Pong { custody } => {
                if *custody {
                    m.add_option(CUSTODY, []);
                }
            }
            Signal::Release { alternative_addresses, hold_off_s, diagnostic } => {
                for a in alternative_addresses {
                    m.add_option(ALTERNATIVE_ADDRESS, a.as_bytes());
                }
                if let Some(s) = hold_off_s {
                    m.add_option(HOLD_OFF, encode_uint(*s));
                }
                m.payload = Payload::from(diagnostic.clone().into_bytes());
            }
            Signal::Abort { bad_csm_option, diagnostic } => {
                if let Some(n) = bad_csm_option {
                    m.add_option(BAD_CSM_OPTION, encode_uint(u32::from(*n)));
                }
                m.payload = Payload::from(diagnostic.clone().into_bytes());
            }
        }
        m
    }
}

/// A short name of a code for logs: `CSM`, `Ping`, … for signals, else `c.dd`.
pub fn signal_name(code: Code) -> Option<&'static str> {
    Some(match code {
        CSM => "CSM",
        PING => "Ping",
        PONG => "Pong",
        RELEASE => "Release",
        ABORT => "Abort",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::super::frame::{decode, encode};
    use super::*;

    #[test]
    fn rfc_8323_figures_11_and_12_ping_and_pong_with_token_42() {
        // §5.7: Len 0, TKL 1 → 0x01; 7.02 → 0xe2 (7.03 → 0xe3); token 0x42.
        let token = Token::new(&[0x42]).unwrap();
        assert_eq!(encode(&Signal::Ping { custody: false }.to_message(token)).unwrap(), [0x01, 0xe2, 0x42]);
        assert_eq!(encode(&Signal::Pong { custody: false }.to_message(token)).unwrap(), [0x01, 0xe3, 0x42]);
        let pong = decode(&[0x01, 0xe3, 0x42]).unwrap();
        assert_eq!((Signal::parse(&pong), pong.token), (Ok(Signal::Pong { custody: false }), token));
    }

    #[test]
    fn a_csm_encodes_its_options_by_hand() {
        // Max-Message-Size 2 with 66 048 = 0x01 0x02 0x00 (3 bytes): option byte 0x23; then
        // Block-Wise-Transfer 4 (delta 2, empty): 0x20. Body 5 bytes: Len 5, TKL 0 → 0x50;
        // code 7.01 → 0xe1 (derived from RFC 8323 §3.2, §5.3 and RFC 7252 §3.1).
        let csm = Signal::Csm(Csm { max_message_size: Some(66_048), block_wise_transfer: true });
        let bytes = encode(&csm.to_message(Token::EMPTY)).unwrap();
        assert_eq!(bytes, [0x50, 0xe1, 0x23, 0x01, 0x02, 0x00, 0x20]);
        assert_eq!(Signal::parse(&decode(&bytes).unwrap()), Ok(csm));
        // An empty CSM: base values (§5.3).
        assert_eq!(Signal::parse(&decode(&[0x00, 0xe1]).unwrap()), Ok(Signal::Csm(Csm::default())));
    }

    #[test]
    fn unknown_critical_options_are_errors_and_unknown_elective_ones_are_ignored() {
        let mut m = TcpMessage::new(CSM);
        m.add_option(6, [1]);
        assert_eq!(Signal::parse(&m), Ok(Signal::Csm(Csm::default())), "6 is elective");
        m.add_option(9, []);
        let e = Signal::parse(&m).unwrap_err();
        assert_eq!(e, SignalError::UnknownCritical { code: CSM, number: 9 });
        assert_eq!(e.bad_csm_option(), Some(9));
        let mut ping = TcpMessage::new(PING);
        ping.add_option(CUSTODY, [1]);
        assert_eq!(
            Signal::parse(&ping),
            Err(SignalError::BadValue { code: PING, number: CUSTODY, len: 1, min: 0, max: 0 })
        );
        assert_eq!(Signal::parse(&TcpMessage::new(Code(0xe6))), Err(SignalError::UnknownCode(Code(0xe6))));
    }

    #[test]
    fn release_and_abort_round_trip_with_their_options_and_diagnostics() {
        for s in [
            Signal::Release {
                alternative_addresses: vec!["[::1]:5683".into(), "example.org".into()],
                hold_off_s: Some(300),
                diagnostic: "maintenance".into(),
            },
            Signal::Abort { bad_csm_option: Some(9), diagnostic: "unknown critical CSM option".into() },
        ] {
            let m = decode(&encode(&s.to_message(Token::EMPTY)).unwrap()).unwrap();
            assert_eq!(Signal::parse(&m), Ok(s));
        }
    }
}
