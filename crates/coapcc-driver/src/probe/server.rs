//! `coapcc probe server`: what a server's answers to the probe's messages mean. The probe
//! (`coapcc-udp`) sends a confirmable GET, the same datagram again (a duplicate), an empty
//! confirmable message (a CoAP ping, RFC 7252 §4.3) and an ACK nobody asked for; this module
//! checks what came back.

use super::infer::{Kind, Violation};

/// How the server answered the GET.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Answer {
    /// A response in the ACK (RFC 7252 §5.2.1).
    Piggybacked,
    /// An empty ACK, then the response in its own message (§5.2.2).
    Separate,
    /// A response without an ACK first (a NON or CON response to a CON request).
    Unacknowledged,
    /// Nothing.
    None,
}

/// What the server did with the duplicate of the GET.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Duplicate {
    /// The same ACK again, byte for byte (the response was not computed anew, or was the same).
    SameAnswer,
    /// An ACK with another response: the request was processed again.
    DifferentAnswer,
    /// Nothing came back.
    Ignored,
}

/// What the probe saw.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct ServerObservation {
    /// How the GET was answered.
    pub answer: Answer,
    /// Size of the GET (bytes of the UDP payload).
    pub request_bytes: usize,
    /// Bytes the server sent for it (every message of the answer).
    pub response_bytes: usize,
    /// How the duplicate was handled, and how long after the original it was sent (seconds).
    pub duplicate: Duplicate,
    /// Seconds between the GET and its duplicate.
    pub duplicate_after_s: f64,
    /// Whether the ping drew a Reset with its Message ID.
    pub ping_reset: bool,
    /// Whether the unexpected ACK drew any answer.
    pub stray_ack_answered: bool,
}

/// The bound on bytes sent per byte received that the probe applies (QUIC's
/// anti-amplification limit, RFC 9000 §8.1; RFC 7252 §11.3 names no number).
pub const AMPLIFICATION_BOUND: f64 = 3.0;

/// The checks of a server, with the observation behind them.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ServerFindings {
    /// What the probe saw.
    pub observation: ServerObservation,
    /// Response bytes over request bytes.
    pub amplification: f64,
    /// Rules broken: requirements (MUST) and the amplification bound.
    pub violations: Vec<Violation>,
    /// Recommendations (SHOULD) not followed: warnings, never a failure.
    pub warnings: Vec<Violation>,
}

impl ServerFindings {
    /// Whether the server conforms: no violated requirement, and (unless `allow_tuned`) no
    /// guidance exceeded; a warning (a SHOULD not followed) does not count.
    pub fn conforms(&self, allow_tuned: bool) -> bool {
        self.violations.iter().all(|v| allow_tuned && v.kind != Kind::Requirement)
    }
}

/// Checks a server's answers (docs/probe.md lists the rules).
pub fn check_server(o: &ServerObservation) -> ServerFindings {
    let mut v = Vec::new();
    let mut add = |rule, kind, finding: &str, evidence: String| {
        v.push(Violation { rule, kind, finding: finding.to_string(), evidence })
    };
    match o.answer {
        Answer::None => {
            add("RFC 7252 §4.2", Kind::Requirement, "does not answer a confirmable request", "no ACK, no Reset".into())
        }
        Answer::Unacknowledged => add(
            "RFC 7252 §4.2, §5.2",
            Kind::Requirement,
            "answers a confirmable request without acknowledging it",
            "a response that was neither an ACK nor preceded by an empty ACK".into(),
        ),
        Answer::Piggybacked | Answer::Separate => {}
    }
    if o.answer != Answer::None {
        match o.duplicate {
            Duplicate::SameAnswer => {}
            // §4.5: the recipient "SHOULD acknowledge each duplicate copy of a Confirmable
            // message using the same Acknowledgement or Reset message but SHOULD process any
            // request or response in the message only once".
            Duplicate::DifferentAnswer => add(
                "RFC 7252 §4.5",
                Kind::Recommendation,
                "processes a duplicate request again (another response, not the same acknowledgement)",
                format!("the duplicate, {:.1} s after the original, drew a different ACK", o.duplicate_after_s),
            ),
            Duplicate::Ignored => add(
                "RFC 7252 §4.5",
                Kind::Recommendation,
                "does not acknowledge the duplicate of a confirmable request",
                format!("nothing came back for the duplicate sent {:.1} s after the original", o.duplicate_after_s),
            ),
        }
    }
    // §4.2: a recipient MUST acknowledge a Confirmable message or reject it, "including
    // situations where the message is Empty"; rejecting is a Reset (the "CoAP ping", §4.3).
    if !o.ping_reset {
        add(
            "RFC 7252 §4.2, §4.3",
            Kind::Requirement,
            "does not answer an empty confirmable message (CoAP ping) with a Reset",
            "no Reset with the ping's Message ID".into(),
        );
    }
    // §4.2: "recipients of Acknowledgement and Reset messages MUST NOT respond with either
    // Acknowledgement or Reset messages".
    if o.stray_ack_answered {
        add(
            "RFC 7252 §4.2",
            Kind::Requirement,
            "answers an ACK that matches no message of its own (it must be silently ignored)",
            "a datagram came back for an unexpected empty ACK".into(),
        );
    }
    let amplification = if o.request_bytes == 0 { 0.0 } else { o.response_bytes as f64 / o.request_bytes as f64 };
    if amplification > AMPLIFICATION_BOUND {
        add(
            "RFC 7252 §11.3",
            Kind::Default,
            "answers an unauthenticated request with more than three times its size (amplification)",
            format!("{} bytes for a {}-byte request: factor {amplification:.1}", o.response_bytes, o.request_bytes),
        );
    }
    let (warnings, violations) = v.into_iter().partition(|x| x.kind == Kind::Recommendation);
    ServerFindings { observation: *o, amplification, violations, warnings }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn good() -> ServerObservation {
        ServerObservation {
            answer: Answer::Piggybacked,
            request_bytes: 20,
            response_bytes: 40,
            duplicate: Duplicate::SameAnswer,
            duplicate_after_s: 2.0,
            ping_reset: true,
            stray_ack_answered: false,
        }
    }

    #[test]
    fn a_server_that_does_everything_right_conforms() {
        let f = check_server(&good());
        assert!(f.violations.is_empty(), "{:?}", f.violations);
        assert_eq!(f.amplification, 2.0);
        assert!(f.conforms(false));
    }

    #[test]
    fn each_wrong_answer_is_named_with_its_rule_and_the_rfc_keyword_s_kind() {
        // RFC 7252: §4.2 MUST acknowledge or reject a CON (an Empty one by a Reset) and MUST
        // NOT answer an ACK; §4.5 SHOULD answer a duplicate alike and process it once (a
        // warning); §11.3 names no number (the bound is a default).
        let cases = [
            (
                ServerObservation { duplicate: Duplicate::DifferentAnswer, ..good() },
                "RFC 7252 §4.5",
                "again",
                Kind::Recommendation,
            ),
            (
                ServerObservation { duplicate: Duplicate::Ignored, ..good() },
                "RFC 7252 §4.5",
                "duplicate",
                Kind::Recommendation,
            ),
            (ServerObservation { ping_reset: false, ..good() }, "RFC 7252 §4.2, §4.3", "ping", Kind::Requirement),
            (
                ServerObservation { stray_ack_answered: true, ..good() },
                "RFC 7252 §4.2",
                "silently ignored",
                Kind::Requirement,
            ),
            (ServerObservation { response_bytes: 61, ..good() }, "RFC 7252 §11.3", "amplification", Kind::Default),
            (
                ServerObservation { answer: Answer::None, ..good() },
                "RFC 7252 §4.2",
                "does not answer",
                Kind::Requirement,
            ),
        ];
        for (o, rule, word, kind) in cases {
            let f = check_server(&o);
            let all: Vec<&Violation> = f.violations.iter().chain(&f.warnings).collect();
            assert_eq!(all.len(), 1, "{o:?}: {all:?}");
            assert_eq!((all[0].rule, all[0].kind), (rule, kind));
            assert!(all[0].finding.contains(word), "{:?}", all[0]);
            // A SHOULD not followed is a warning, listed apart, and never fails.
            assert_eq!(f.warnings.len(), usize::from(kind == Kind::Recommendation), "{f:?}");
            assert_eq!(f.conforms(false), kind == Kind::Recommendation, "{f:?}");
        }
        // A large response alone is a changed default, allowed with --allow-tuned.
        let f = check_server(&ServerObservation { response_bytes: 61, ..good() });
        assert!(!f.conforms(false) && f.conforms(true));
    }
}
