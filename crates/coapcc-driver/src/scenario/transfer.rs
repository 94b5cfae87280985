//! The checks of a `[coap.blockwise]` table ([`super::blockwise`]): the block size from the MTU
//! ([`block_szx`]) and what a block-wise scenario must be ([`check_blockwise`]).

use coapcc_core::{AnyConfig, Family};
use coapcc_proto::block::{Block, MAX_SZX, size_of_szx};

use super::blockwise::{BlockBytes, BlockwiseConfig};
use super::error::ScenarioError;
use super::schema::{CoapConfig, Count, FlowType, WorkloadConfig};
use super::sizes::largest_datagram;

/// Why a transfer's block size cannot be used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BlockwiseError {
    /// A fixed size that RFC 7959 §2.2 cannot express.
    #[error("{0} is not an RFC 7959 block size (16, 32, 64, 128, 256, 512 or 1024 bytes)")]
    NotABlockSize(u16),
    /// Even the chosen (or the smallest) block's response does not fit the MTU.
    #[error("a {block_bytes}-byte block makes a {worst_bytes}-byte datagram, over the {mtu_bytes}-byte MTU")]
    TooLarge {
        /// The block size, bytes.
        block_bytes: usize,
        /// The largest datagram, IP/UDP headers included, bytes.
        worst_bytes: u64,
        /// The MTU, bytes.
        mtu_bytes: u32,
    },
    /// More blocks than a Block2 option can number (2²⁰).
    #[error("{blocks} blocks: a Block2 option numbers at most 1048576 (choose a larger block)")]
    TooManyBlocks {
        /// The block count.
        blocks: u64,
    },
}

/// The size exponent (SZX) of `transfer` under `coap`: the fixed size's, or with `"mtu"` the
/// largest whose largest datagram ([`largest_datagram`]: IP/UDP headers, header, the
/// scenario's longest token, the transmission-count option unless the echo choice rules it
/// out, Block2 with the largest block number, payload marker and a full block) fits the MTU.
pub fn block_szx(transfer: &BlockwiseConfig, coap: &CoapConfig) -> Result<u8, BlockwiseError> {
    let fits = |szx: u8| -> Result<u8, BlockwiseError> {
        let blocks = u64::from(transfer.object_bytes).div_ceil(size_of_szx(szx) as u64);
        if blocks > 1 << 20 {
            return Err(BlockwiseError::TooManyBlocks { blocks });
        }
        // The largest block number, with M set, and a full block (or the whole object).
        let last = Block { num: transfer.blocks(szx) - 1, more: true, szx };
        let payload = (size_of_szx(szx) as u64).min(u64::from(transfer.object_bytes));
        let worst = largest_datagram(coap, Some((last, payload)));
        if worst > u64::from(coap.mtu_bytes) {
            return Err(BlockwiseError::TooLarge {
                block_bytes: size_of_szx(szx),
                worst_bytes: worst,
                mtu_bytes: coap.mtu_bytes,
            });
        }
        Ok(szx)
    };
    match transfer.block_bytes {
        BlockBytes::Fixed(n) => {
            let szx =
                (0..=MAX_SZX).find(|s| size_of_szx(*s) == usize::from(n)).ok_or(BlockwiseError::NotABlockSize(n))?;
            fits(szx)
        }
        BlockBytes::Mtu => {
            // The largest size that fits; the smallest's error when none does.
            let mut last = Err(BlockwiseError::NotABlockSize(0));
            for szx in (0..=MAX_SZX).rev() {
                last = fits(szx);
                if last.is_ok() {
                    break;
                }
            }
            last
        }
    }
}

/// Checks a network scenario's `[coap.blockwise]` table, if it has one, and sets each flow's
/// exchanges to the object's block count (in the checked workload and in the resolved file):
/// the block size must fit ([`block_szx`]); a transfer is one client fetching every block, so
/// the flow type must be `continuous` and `count` `successes` (a block whose exchange failed
/// is fetched again); and every algorithm must be a CoAP congestion control (the window-of-one
/// TCP timers of family `tcp`, uIP and Lim, are refused: a firmware update over TCP is the TCP
/// model's).
pub(super) fn check_blockwise(
    coap: &CoapConfig,
    workload: &mut WorkloadConfig,
    algorithms: &[(String, AnyConfig)],
    file: &str,
) -> Result<(), ScenarioError> {
    let Some(transfer) = &coap.blockwise else { return Ok(()) };
    let err =
        |key: &str, problem: String| ScenarioError { file: file.into(), line: None, key: Some(key.into()), problem };
    let szx = block_szx(transfer, coap).map_err(|e| err("coap.blockwise.block_bytes", e.to_string()))?;
    if workload.flow_type != FlowType::Continuous {
        return Err(err(
            "workload.flow_type",
            "a block-wise transfer is one client fetching the whole object: the flow type must be `continuous`".into(),
        ));
    }
    if workload.count != Count::Successes {
        return Err(err(
            "workload.count",
            "a block-wise transfer fetches a failed block again: `count` must be `successes`".into(),
        ));
    }
    if let Some((name, _)) = algorithms.iter().find(|(_, c)| c.family() == Family::Tcp) {
        return Err(err(
            "algorithms",
            format!(
                "`{name}` is a window-of-one TCP timer (family tcp), not a CoAP congestion control; a block-wise transfer runs the CoAP algorithms"
            ),
        ));
    }
    workload.exchanges_per_flow = transfer.blocks(szx);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::EchoChoice;

    const FIRMWARE: BlockwiseConfig = BlockwiseConfig { object_bytes: 102_400, block_bytes: BlockBytes::Mtu };

    #[test]
    fn the_firmware_image_is_400_blocks_of_256_bytes_under_the_296_byte_mtu_with_the_token_echo() {
        // MTU 296 − IPv4 20 − UDP 8 = 268 bytes of CoAP. A 256-byte block's response: header 4,
        // token 2 + 1 echo byte, Block2 4 (delta 23 needs one extended byte; NUM 399·16 + M·8 +
        // SZX 4 = 6396 needs two value bytes), marker 1, payload 256 = 268: it fits exactly.
        let coap = CoapConfig { echo: EchoChoice::AutoToken, blockwise: Some(FIRMWARE), ..CoapConfig::default() };
        assert_eq!(block_szx(&FIRMWARE, &coap), Ok(4));
        assert_eq!((FIRMWARE.blocks(4), FIRMWARE.block_len(399, 4)), (400, 256));
        // With the transmission-count option possible (echo "auto": pCoCoA, IDC, MBC) it is
        // 3–4 bytes more (delta 65020 − 23 needs two extended bytes, value ≤ 1 byte): 272 B,
        // so the largest block that fits is 128 bytes.
        let auto = CoapConfig { echo: EchoChoice::Auto, ..coap.clone() };
        assert_eq!(block_szx(&FIRMWARE, &auto), Ok(3));
        // Without any echo byte the 256-byte block leaves one byte spare.
        let none = CoapConfig { echo: EchoChoice::None, ..coap };
        assert_eq!(block_szx(&FIRMWARE, &none), Ok(4));
    }

    #[test]
    fn a_fixed_block_size_is_checked_against_rfc_7959_and_the_mtu() {
        let coap = CoapConfig { echo: EchoChoice::AutoToken, ..CoapConfig::default() };
        let t = |n| BlockwiseConfig { object_bytes: 1000, block_bytes: BlockBytes::Fixed(n) };
        assert_eq!(block_szx(&t(64), &coap), Ok(2));
        assert_eq!(block_szx(&t(100), &coap), Err(BlockwiseError::NotABlockSize(100)));
        let e = block_szx(&t(512), &coap).unwrap_err();
        // 512-byte block: 4 + 3 + Block2 (2 + 1: NUM ≤ 1 fits one byte) + 1 + 512 + 28.
        assert_eq!(e, BlockwiseError::TooLarge { block_bytes: 512, worst_bytes: 551, mtu_bytes: 296 });
        assert_eq!(e.to_string(), "a 512-byte block makes a 551-byte datagram, over the 296-byte MTU");
    }

    #[test]
    fn the_last_block_holds_the_rest_and_an_empty_object_is_one_empty_block() {
        let t = BlockwiseConfig { object_bytes: 1000, block_bytes: BlockBytes::Mtu };
        assert_eq!((t.blocks(4), t.block_len(2, 4), t.block_len(3, 4), t.block_len(4, 4)), (4, 256, 232, 0));
        let empty = BlockwiseConfig { object_bytes: 0, ..t };
        assert_eq!((empty.blocks(4), empty.block_len(0, 4)), (1, 0));
    }

    const SCENARIO: &str = "name = \"t\"\ndescription = \"d\"\nsource = \"s\"\nseed = 1\nreplications = 1\n\
                            algorithms = [\"default\", \"pcocoa\"]\n[network.nbiot]\nbuffer_bytes = 28200\nerrors = \"none\"\n\
                            [workload]\nflows = 1\nflow_type = \"continuous\"\n\
                            [coap]\necho = \"auto-token\"\n[coap.blockwise]\nobject_bytes = 102400\n";

    fn parse_with(sets: &[&str]) -> Result<crate::scenario::Scenario, ScenarioError> {
        let sets: Vec<crate::scenario::Setting> = sets.iter().map(|s| s.parse().unwrap()).collect();
        crate::scenario::parse(SCENARIO, "t.toml", &sets)
    }

    #[test]
    fn a_block_wise_scenario_does_one_exchange_per_block_whatever_exchanges_per_flow_said() {
        let s = parse_with(&[]).unwrap();
        let crate::scenario::Model::Network { workload, .. } = s.model else { panic!("a network model") };
        assert_eq!(workload.exchanges_per_flow, 400);
        assert_eq!(s.file.workload.map(|w| w.exchanges_per_flow), Some(400), "written into the resolved file");
        // Resolved and read again; a new object size gives a new count.
        assert_eq!(crate::scenario::parse(&s.to_toml(), "scenario.toml", &[]).unwrap(), s);
        let half = parse_with(&["object_bytes=51200", "exchanges_per_flow=7"]).unwrap();
        assert_eq!(half.file.workload.map(|w| w.exchanges_per_flow), Some(200));
        // Without the table nothing is written and nothing changes.
        let text = SCENARIO.replace("[coap.blockwise]\nobject_bytes = 102400\n", "");
        let plain = crate::scenario::parse(&text, "t.toml", &[]).unwrap();
        assert!(!plain.to_toml().contains("blockwise"));
        assert_eq!(plain.file.workload.map(|w| w.exchanges_per_flow), Some(50));
    }

    #[test]
    fn a_block_wise_scenario_refuses_what_a_transfer_cannot_be_naming_the_key() {
        let key = |sets: &[&str]| parse_with(sets).unwrap_err().key;
        assert_eq!(key(&["flow_type=random"]), Some("workload.flow_type".into()));
        assert_eq!(key(&["count=attempts"]), Some("workload.count".into()));
        assert_eq!(key(&["coap.blockwise.block_bytes=1024"]), Some("coap.blockwise.block_bytes".into()));
        // With the option echo possible, a 256-byte block does not fit: "mtu" falls to 128.
        let auto = parse_with(&["echo=auto"]).unwrap();
        let crate::scenario::Model::Network { workload, .. } = auto.model else { panic!("a network model") };
        assert_eq!(workload.exchanges_per_flow, 800);
        let e = parse_with(&["algorithms=[\"default\", \"lim\"]"]).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("algorithms"));
        assert!(e.problem.contains("`lim` is a window-of-one TCP timer"), "{e}");
    }
}
