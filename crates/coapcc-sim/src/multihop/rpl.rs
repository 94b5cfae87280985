//! The static RPL DODAG of multihop.md §1.6 (adopted simplification, OQ-M17).
//!
//! Computed once at t = 0: each node's parent is the neighbour (within `R_tx`) that minimises
//! the path ETX, with link ETX `1/(SR_tx² · p_rx(d)²)` (data and ACK); with the default
//! ratios every link has ETX 1, so this is the min-hop tree. Ties are broken by a seeded
//! random choice (RPL keeps whichever DIO it accepted first): one draw per node with more
//! than one candidate, nodes in id order. No control traffic, no parent changes. Routes go
//! up to the lowest common ancestor and down (storing mode; never a shortcut between
//! neighbours).

use coapcc_driver::rng::below;
use rand_core::Rng;

use super::NodeId;
use super::medium::{Geometry, LinkClass};

/// Relative tolerance under which two path ETX values count as a tie.
const TIE_TOLERANCE: f64 = 1e-9;

/// A static DODAG rooted at the border router.
#[derive(Clone, Debug, PartialEq)]
pub struct Dodag {
    root: NodeId,
    parent: Vec<Option<NodeId>>,
    hops: Vec<Option<u32>>,
    path_etx: Vec<f64>,
}

/// The link ETX of `class` with TX success ratio `success_ratio_tx` (`None`: no link).
pub fn link_etx(class: LinkClass, success_ratio_tx: f64) -> Option<f64> {
    match class {
        LinkClass::Connected { p_rx } => {
            let p = success_ratio_tx * success_ratio_tx * p_rx * p_rx;
            (p > 0.0).then(|| 1.0 / p)
        }
        LinkClass::Interferer | LinkClass::Out => None,
    }
}

impl Dodag {
    /// Builds the DODAG over `geometry` rooted at `root` (an unknown root gives a DODAG in
    /// which every node is unreachable). `rng` breaks ties.
    pub fn build<R: Rng + ?Sized>(geometry: &Geometry, success_ratio_tx: f64, root: NodeId, rng: &mut R) -> Self {
        let n = geometry.len();
        let mut cost = vec![f64::INFINITY; n];
        let mut done = vec![false; n];
        if root.index() < n {
            cost[root.index()] = 0.0;
        }
        let etx = |a: usize, b: usize| {
            link_etx(geometry.class(NodeId::from_index(a), NodeId::from_index(b)), success_ratio_tx)
        };
        // Dijkstra, O(n²): the topologies have at most a few dozen nodes.
        let mut order = Vec::with_capacity(n);
        loop {
            let next = (0..n).filter(|&i| !done[i] && cost[i].is_finite()).min_by(|&a, &b| cost[a].total_cmp(&cost[b]));
            let Some(u) = next else { break };
            done[u] = true;
            order.push(u);
            for v in 0..n {
                if let Some(e) = etx(u, v)
                    && !done[v]
                    && cost[u] + e < cost[v]
                {
                    cost[v] = cost[u] + e;
                }
            }
        }
        let mut parent = vec![None; n];
        for v in 0..n {
            if v == root.index() || !cost[v].is_finite() {
                continue;
            }
            let tol = TIE_TOLERANCE * cost[v].max(1.0);
            let candidates: Vec<usize> = (0..n)
                .filter(|&u| cost[u] < cost[v] && etx(u, v).is_some_and(|e| (cost[u] + e - cost[v]).abs() <= tol))
                .collect();
            let pick = match candidates.len() {
                0 => None,
                1 => Some(candidates[0]),
                k => Some(candidates[below(rng, k as u64) as usize]),
            };
            parent[v] = pick.map(NodeId::from_index);
        }
        let mut hops = vec![None; n];
        for &v in &order {
            hops[v] =
                if v == root.index() { Some(0) } else { parent[v].and_then(|p| hops[p.index()]).map(|h: u32| h + 1) };
        }
        Dodag { root, parent, hops, path_etx: cost }
    }

    /// The root (border router).
    pub fn root(&self) -> NodeId {
        self.root
    }

    /// The preferred parent of `node` (`None` for the root and unreachable nodes).
    pub fn parent(&self, node: NodeId) -> Option<NodeId> {
        self.parent.get(node.index()).copied().flatten()
    }

    /// Hops from `node` to the root (`None` if unreachable).
    pub fn hops(&self, node: NodeId) -> Option<u32> {
        self.hops.get(node.index()).copied().flatten()
    }

    /// The path ETX from `node` to the root (infinite if unreachable).
    pub fn path_etx(&self, node: NodeId) -> f64 {
        self.path_etx.get(node.index()).copied().unwrap_or(f64::INFINITY)
    }

    /// `node` and its ancestors up to the root (empty if unreachable).
    pub fn ancestors(&self, node: NodeId) -> Vec<NodeId> {
        if self.hops(node).is_none() {
            return Vec::new();
        }
        let mut path = vec![node];
        let mut cur = node;
        while let Some(p) = self.parent(cur) {
            path.push(p);
            cur = p;
        }
        path
    }

    /// The route from `src` to `dst` (both included): up to the lowest common ancestor and
    /// down (storing mode). `None` if either end is unreachable.
    pub fn route(&self, src: NodeId, dst: NodeId) -> Option<Vec<NodeId>> {
        let up = self.ancestors(src);
        let down = self.ancestors(dst);
        if up.is_empty() || down.is_empty() {
            return None;
        }
        let lca_in_up = up.iter().position(|a| down.contains(a))?;
        let lca = up[lca_in_up];
        let lca_in_down = down.iter().position(|&a| a == lca)?;
        let mut path: Vec<NodeId> = up[..=lca_in_up].to_vec();
        path.extend(down[..lca_in_down].iter().rev());
        Some(path)
    }

    /// Number of hops of [`Dodag::route`].
    pub fn route_hops(&self, src: NodeId, dst: NodeId) -> Option<u32> {
        self.route(src, dst).map(|p| (p.len() - 1) as u32)
    }

    /// The next hop from `at` towards `dst` along the route (`None` at `dst` or unreachable).
    pub fn next_hop(&self, at: NodeId, dst: NodeId) -> Option<NodeId> {
        self.route(at, dst).and_then(|p| p.get(1).copied())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::multihop::ContikiVersion;
    use crate::multihop::medium::UdgmConfig;
    use crate::multihop::topology::{Role, Topology};
    use coapcc_driver::rng::stream_rng;

    fn dodag(t: &Topology, cfg: &UdgmConfig, seed: u64) -> Dodag {
        let g = Geometry::new(&t.positions(), cfg).unwrap();
        Dodag::build(&g, cfg.success_ratio_tx, t.border_router().unwrap(), &mut stream_rng(seed, 0, 0))
    }

    fn hop_stats(t: &Topology, d: &Dodag, role: Role) -> (f64, u32, Vec<u32>) {
        let hops: Vec<u32> = t.with_role(role).into_iter().map(|n| d.hops(n).unwrap()).collect();
        let mean = hops.iter().sum::<u32>() as f64 / hops.len() as f64;
        (mean, *hops.iter().max().unwrap(), hops)
    }

    #[test]
    fn lim_4x4_has_mean_hop_count_3_2_and_max_6() {
        // §6 check 10.
        let t = Topology::lim_4x4();
        let (mean, max, hops) = hop_stats(&t, &dodag(&t, &UdgmConfig::default(), 1), Role::EndNode);
        assert_eq!(hops.len(), 15);
        assert!((mean - 3.2).abs() < 1e-9, "{mean}");
        assert_eq!(max, 6);
    }

    #[test]
    fn lim_5x5_with_a_centre_border_router_has_mean_hop_count_2_5_and_max_4() {
        let t = Topology::lim_5x5();
        let (mean, max, hops) = hop_stats(&t, &dodag(&t, &UdgmConfig::default(), 2), Role::EndNode);
        assert_eq!(hops.len(), 24);
        assert!((mean - 2.5).abs() < 1e-9, "{mean}");
        assert_eq!(max, 4);
    }

    #[test]
    fn the_betzler_surrogate_has_the_published_hop_distribution() {
        // §2.1: 1 hop ×4, 2 ×8, 3 ×9, 4 ×6, 5 ×2 (mean 2.79, max 5).
        let t = Topology::betzler_surrogate();
        let cfg = UdgmConfig { success_ratio_tx: 0.94, ..UdgmConfig::for_version(ContikiVersion::V2_7) };
        let (mean, max, hops) = hop_stats(&t, &dodag(&t, &cfg, 3), Role::EndNode);
        let mut histogram = [0; 6];
        for h in hops {
            histogram[h as usize] += 1;
        }
        assert_eq!(histogram, [0, 4, 8, 9, 6, 2]);
        assert!((mean - 2.79).abs() < 0.005, "{mean}");
        assert_eq!(max, 5);
    }

    #[test]
    fn in_the_makarem_chain_sender_i_is_i_hops_from_the_receiver() {
        for n in [4, 6, 8, 10, 12] {
            let t = Topology::makarem_chain(n);
            let d = dodag(&t, &UdgmConfig::default(), 4);
            let rx = t.first_with(Role::Receiver).unwrap();
            for s in t.with_role(Role::Sender) {
                assert_eq!(d.route_hops(s, rx), Some(s.0 as u32), "N = {n}, sender {}", s.0);
                // Every message is relayed by the border router.
                assert!(d.route(s, rx).unwrap().contains(&t.border_router().unwrap()));
            }
        }
    }

    #[test]
    fn in_the_ring_eight_of_ten_senders_are_one_hop_from_the_receiver() {
        // §3.5 M6 surrogate.
        let t = Topology::makarem_ring12();
        let d = dodag(&t, &UdgmConfig::default(), 5);
        let rx = t.first_with(Role::Receiver).unwrap();
        let one_hop = t.with_role(Role::Sender).into_iter().filter(|&s| d.route_hops(s, rx) == Some(1)).count();
        assert_eq!(one_hop, 8);
        assert_eq!(d.hops(rx), Some(1));
    }

    #[test]
    fn dumbbell_traffic_crosses_the_border_router_to_receiver_link() {
        let t = Topology::makarem_dumbbell(15).unwrap();
        let d = dodag(&t, &UdgmConfig::default(), 6);
        let (br, rx) = (t.border_router().unwrap(), t.first_with(Role::Receiver).unwrap());
        for s in t.with_role(Role::Sender) {
            let route = d.route(s, rx).unwrap();
            assert_eq!(&route[route.len() - 2..], &[br, rx]);
            assert!(matches!(route.len() - 1, 2 | 3), "{route:?}");
        }
    }

    #[test]
    fn routes_between_nodes_go_up_to_the_common_ancestor_and_down() {
        // A 3 × 1 chain hanging off the root on both sides: 1 - 0(root) - 2.
        let t = Topology::grid(3, 1, 40.0, 1, 0);
        let d = dodag(&t, &UdgmConfig::default(), 7);
        assert_eq!(d.route(NodeId(0), NodeId(2)), Some(vec![NodeId(0), NodeId(1), NodeId(2)]));
        assert_eq!(d.next_hop(NodeId(0), NodeId(2)), Some(NodeId(1)));
        assert_eq!(d.route(NodeId(0), NodeId(0)), Some(vec![NodeId(0)]));
        assert_eq!(d.next_hop(NodeId(2), NodeId(2)), None);
    }

    #[test]
    fn ties_are_broken_by_the_seed_and_reproducibly() {
        // In the 4 × 4 grid node (1,1) has two equal parents, (0,1) and (1,0).
        let t = Topology::lim_4x4();
        let node = NodeId(5);
        let parents: std::collections::BTreeSet<_> =
            (0..64).map(|seed| dodag(&t, &UdgmConfig::default(), seed).parent(node).unwrap()).collect();
        assert_eq!(parents.into_iter().collect::<Vec<_>>(), vec![NodeId(1), NodeId(4)]);
        assert_eq!(dodag(&t, &UdgmConfig::default(), 9), dodag(&t, &UdgmConfig::default(), 9));
    }

    #[test]
    fn a_lossier_short_path_loses_to_a_cleaner_longer_one() {
        // With SR_rx = 0.1 the 49-m hop has ETX ≈ 1/(0.1178²) ≈ 72, two 24.5-m hops ≈ 2·1.6.
        let t = Topology {
            nodes: vec![
                coapcc_driver::scenario::multihop::Node {
                    pos: crate::multihop::topology::Position::xy(0.0, 0.0),
                    role: Role::BorderRouter,
                },
                coapcc_driver::scenario::multihop::Node {
                    pos: crate::multihop::topology::Position::xy(24.5, 0.0),
                    role: Role::EndNode,
                },
                coapcc_driver::scenario::multihop::Node {
                    pos: crate::multihop::topology::Position::xy(49.0, 0.0),
                    role: Role::EndNode,
                },
            ],
        };
        let cfg = UdgmConfig { success_ratio_rx: 0.1, ..UdgmConfig::default() };
        let d = dodag(&t, &cfg, 10);
        assert_eq!(d.parent(NodeId(2)), Some(NodeId(1)));
        assert_eq!(d.hops(NodeId(2)), Some(2));
        assert!(d.path_etx(NodeId(2)) < link_etx(LinkClass::Connected { p_rx: cfg.p_rx(49.0) }, 1.0).unwrap());
    }

    #[test]
    fn unreachable_nodes_have_no_parent_hops_or_route() {
        let t = Topology::grid(3, 1, 60.0, 0, 0);
        let d = dodag(&t, &UdgmConfig::default(), 11);
        assert_eq!(d.hops(NodeId(1)), None);
        assert_eq!(d.parent(NodeId(1)), None);
        assert_eq!(d.route(NodeId(1), NodeId(0)), None);
        assert!(d.ancestors(NodeId(2)).is_empty());
        assert_eq!(d.hops(NodeId(0)), Some(0));
    }
}
