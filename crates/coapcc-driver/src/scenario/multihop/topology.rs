//! Node lists of the multihop set-ups (multihop.md §2.1, §3.1, §4.1): positions in metres
//! and roles.
//!
//! Lim's 4 × 4 and 5 × 5 grids (§4.1), Betzler's 5 × 6 FlockLab surrogate (§2.1, OQ-M3) and
//! Makarem's Grid 30, Square 18, U 15, Chain N, Ring 12 and Dumbbell N surrogates (§3.1,
//! OQ-M7). Node ids are list positions; the border router is always present and
//! [`Topology::border_router`] finds it.

/// A node of a multihop topology: its index in the node list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeId(pub u16);

impl NodeId {
    /// The node at list position `i` (saturating at `u16::MAX`, far beyond any topology).
    pub fn from_index(i: usize) -> Self {
        NodeId(u16::try_from(i).unwrap_or(u16::MAX))
    }

    /// The list position.
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// A position in metres (z is used only by the Ring's raised border router, §3.1).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Position {
    /// x, m.
    pub x_m: f64,
    /// y, m.
    pub y_m: f64,
    /// z, m.
    pub z_m: f64,
}

impl Position {
    /// A point in the plane z = 0.
    pub const fn xy(x_m: f64, y_m: f64) -> Self {
        Position { x_m, y_m, z_m: 0.0 }
    }

    /// Euclidean distance to `other`, m.
    pub fn distance_m(&self, other: &Position) -> f64 {
        let (dx, dy, dz) = (self.x_m - other.x_m, self.y_m - other.y_m, self.z_m - other.z_m);
        (dx * dx + dy * dy + dz * dz).sqrt()
    }

    /// The point at `radius_m` from `self` in direction `degrees` (counter-clockwise from +x).
    pub fn polar(&self, radius_m: f64, degrees: f64) -> Self {
        let a = degrees.to_radians();
        Position { x_m: self.x_m + radius_m * a.cos(), y_m: self.y_m + radius_m * a.sin(), z_m: self.z_m }
    }
}

/// What a node does in a set-up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// The RPL DODAG root and gateway to external hosts (§1.7).
    BorderRouter,
    /// A CoAP server (S003) or TCP client (S004): an end node exchanging with a host.
    EndNode,
    /// A CoAP sender of S001 (traffic to the receiver).
    Sender,
    /// The CoAP receiver of S001.
    Receiver,
}

/// One node of a topology.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Node {
    /// Position, m.
    pub pos: Position,
    /// Role.
    pub role: Role,
}

/// A node list (x, y, role), ids = positions in the list.
#[derive(Clone, Debug, PartialEq)]
pub struct Topology {
    /// The nodes, by id.
    pub nodes: Vec<Node>,
}

/// The dumbbell senders' polar coordinates around the border router, in fill order (§3.1).
const DUMBBELL_SENDERS: [(f64, f64); 13] = [
    (40.0, 180.0),
    (40.0, 150.0),
    (40.0, 210.0),
    (40.0, 120.0),
    (40.0, 240.0),
    (40.0, 90.0),
    (40.0, 270.0),
    (80.0, 170.0),
    (80.0, 190.0),
    (80.0, 150.0),
    (80.0, 210.0),
    (80.0, 130.0),
    (80.0, 230.0),
];

impl Topology {
    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// `true` if there are no nodes.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The positions, by id.
    pub fn positions(&self) -> Vec<Position> {
        self.nodes.iter().map(|n| n.pos).collect()
    }

    /// The first node with `role`.
    pub fn first_with(&self, role: Role) -> Option<NodeId> {
        self.nodes.iter().position(|n| n.role == role).map(NodeId::from_index)
    }

    /// The border router (DODAG root).
    pub fn border_router(&self) -> Option<NodeId> {
        self.first_with(Role::BorderRouter)
    }

    /// The ids of the nodes with `role`, in id order.
    pub fn with_role(&self, role: Role) -> Vec<NodeId> {
        (0..self.nodes.len()).filter(|&i| self.nodes[i].role == role).map(NodeId::from_index).collect()
    }

    /// A `cols × rows` lattice with `spacing_m` (x = spacing·c, y = spacing·r), ids row by
    /// row; `keep(c, r)` selects the nodes that are switched on, `role(c, r)` their roles.
    pub fn lattice(
        cols: u32,
        rows: u32,
        spacing_m: f64,
        keep: impl Fn(u32, u32) -> bool,
        role: impl Fn(u32, u32) -> Role,
    ) -> Self {
        let mut nodes = Vec::new();
        for r in 0..rows {
            for c in 0..cols {
                if keep(c, r) {
                    let pos = Position::xy(spacing_m * f64::from(c), spacing_m * f64::from(r));
                    nodes.push(Node { pos, role: role(c, r) });
                }
            }
        }
        Topology { nodes }
    }

    /// A full grid whose border router is at `(br_col, br_row)`; every other node is an
    /// [`Role::EndNode`].
    pub fn grid(cols: u32, rows: u32, spacing_m: f64, br_col: u32, br_row: u32) -> Self {
        Topology::lattice(
            cols,
            rows,
            spacing_m,
            |_, _| true,
            |c, r| if (c, r) == (br_col, br_row) { Role::BorderRouter } else { Role::EndNode },
        )
    }

    /// Lim 4 × 4 grid, 40 m, LBR top-left (§4.1).
    pub fn lim_4x4() -> Self {
        Topology::grid(4, 4, 40.0, 0, 0)
    }

    /// Lim 5 × 5 grid, 40 m, LBR at the centre (§4.1).
    pub fn lim_5x5() -> Self {
        Topology::grid(5, 5, 40.0, 2, 2)
    }

    /// Betzler's FlockLab surrogate: 5 columns × 6 rows at 38 m, border router at column 2,
    /// row 2 (§2.1, OQ-M3).
    pub fn betzler_surrogate() -> Self {
        Topology::grid(5, 6, 38.0, 2, 2)
    }

    /// The role of lattice node `(c, r)` in Makarem's Grid family: BR (0,0), RX (1,0).
    fn makarem_role(c: u32, r: u32) -> Role {
        match (c, r) {
            (0, 0) => Role::BorderRouter,
            (1, 0) => Role::Receiver,
            _ => Role::Sender,
        }
    }

    /// Makarem Grid 30: 5 × 6 at 40 m, BR (0,0), RX (1,0), 28 senders (§3.1).
    pub fn makarem_grid30() -> Self {
        Topology::lattice(5, 6, 40.0, |_, _| true, Topology::makarem_role)
    }

    /// Makarem Square 18: the border of Grid 30 (§3.1).
    pub fn makarem_square18() -> Self {
        Topology::lattice(5, 6, 40.0, |c, r| c == 0 || c == 4 || r == 0 || r == 5, Topology::makarem_role)
    }

    /// Makarem U 15: columns 0 and 4 and row 0 of Grid 30 (§3.1).
    pub fn makarem_u15() -> Self {
        Topology::lattice(5, 6, 40.0, |c, r| c == 0 || c == 4 || r == 0, Topology::makarem_role)
    }

    /// Makarem Chain N: x = 40 i, RX at i = 0, BR at i = 1, senders i = 2 … N − 1 (§3.1).
    pub fn makarem_chain(n: u32) -> Self {
        let nodes = (0..n)
            .map(|i| Node {
                pos: Position::xy(40.0 * f64::from(i), 0.0),
                role: match i {
                    0 => Role::Receiver,
                    1 => Role::BorderRouter,
                    _ => Role::Sender,
                },
            })
            .collect();
        Topology { nodes }
    }

    /// Makarem Ring 12: RX at the centre, 8 senders at 40 m (45° apart), 2 at 80 m (0°,
    /// 180°), BR 45 m above RX (§3.1).
    pub fn makarem_ring12() -> Self {
        let rx = Position::xy(0.0, 0.0);
        let mut nodes = vec![
            Node { pos: rx, role: Role::Receiver },
            Node { pos: Position { x_m: 0.0, y_m: 0.0, z_m: 45.0 }, role: Role::BorderRouter },
        ];
        nodes.extend((0..8).map(|k| Node { pos: rx.polar(40.0, 45.0 * f64::from(k)), role: Role::Sender }));
        nodes.extend([0.0, 180.0].map(|deg| Node { pos: rx.polar(80.0, deg), role: Role::Sender }));
        Topology { nodes }
    }

    /// Makarem Dumbbell N (N ∈ 3 ..= 15): BR (0,0), RX (40,0) and N − 2 senders filled in the
    /// §3.1 order (7 → 5 senders, 10 → 8, 15 → 13). `None` outside that range.
    pub fn makarem_dumbbell(n: u32) -> Option<Self> {
        let senders = usize::try_from(n.checked_sub(2)?).ok()?;
        if senders == 0 || senders > DUMBBELL_SENDERS.len() {
            return None;
        }
        let br = Position::xy(0.0, 0.0);
        let mut nodes = vec![
            Node { pos: br, role: Role::BorderRouter },
            Node { pos: Position::xy(40.0, 0.0), role: Role::Receiver },
        ];
        nodes.extend(
            DUMBBELL_SENDERS[..senders].iter().map(|&(r, deg)| Node { pos: br.polar(r, deg), role: Role::Sender }),
        );
        Some(Topology { nodes })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_ids_round_trip_through_list_positions() {
        assert_eq!(NodeId::from_index(29).index(), 29);
        assert_eq!(NodeId::from_index(usize::MAX), NodeId(u16::MAX));
    }

    #[test]
    fn the_makarem_shapes_have_the_published_node_counts() {
        assert_eq!(Topology::makarem_grid30().len(), 30);
        assert_eq!(Topology::makarem_square18().len(), 18);
        assert_eq!(Topology::makarem_u15().len(), 15);
        assert_eq!(Topology::makarem_chain(12).len(), 12);
        assert_eq!(Topology::makarem_ring12().len(), 12);
        for (n, senders) in [(7, 5), (10, 8), (15, 13)] {
            let t = Topology::makarem_dumbbell(n).unwrap();
            assert_eq!(t.len(), n as usize);
            assert_eq!(t.with_role(Role::Sender).len(), senders);
        }
        assert!(Topology::makarem_dumbbell(16).is_none());
        assert!(Topology::makarem_dumbbell(2).is_none());
    }

    #[test]
    fn every_makarem_shape_has_one_border_router_and_one_receiver() {
        for t in [
            Topology::makarem_grid30(),
            Topology::makarem_square18(),
            Topology::makarem_u15(),
            Topology::makarem_chain(6),
            Topology::makarem_ring12(),
            Topology::makarem_dumbbell(10).unwrap(),
        ] {
            assert_eq!(t.with_role(Role::BorderRouter).len(), 1);
            assert_eq!(t.with_role(Role::Receiver).len(), 1);
            assert_eq!(t.with_role(Role::Sender).len(), t.len() - 2);
        }
    }

    #[test]
    fn the_grids_have_one_border_router_where_the_spec_puts_it() {
        let lim4 = Topology::lim_4x4();
        assert_eq!(lim4.len(), 16);
        assert_eq!(lim4.nodes[lim4.border_router().unwrap().index()].pos, Position::xy(0.0, 0.0));
        let lim5 = Topology::lim_5x5();
        assert_eq!(lim5.nodes[lim5.border_router().unwrap().index()].pos, Position::xy(80.0, 80.0));
        let b = Topology::betzler_surrogate();
        assert_eq!(b.len(), 30);
        assert_eq!(b.with_role(Role::EndNode).len(), 29);
        assert_eq!(b.nodes[b.border_router().unwrap().index()].pos, Position::xy(76.0, 76.0));
    }

    #[test]
    fn the_ring_border_router_is_45_m_from_the_receiver_and_60_m_from_the_ring() {
        let t = Topology::makarem_ring12();
        let rx = t.nodes[t.first_with(Role::Receiver).unwrap().index()].pos;
        let br = t.nodes[t.border_router().unwrap().index()].pos;
        assert!((rx.distance_m(&br) - 45.0).abs() < 1e-9);
        for s in t.with_role(Role::Sender).into_iter().take(8) {
            assert!((t.nodes[s.index()].pos.distance_m(&br) - 60.2).abs() < 0.05);
        }
    }

    #[test]
    fn no_dumbbell_sender_is_within_50_m_of_the_receiver() {
        let t = Topology::makarem_dumbbell(15).unwrap();
        let rx = t.nodes[1].pos;
        for s in t.with_role(Role::Sender) {
            assert!(t.nodes[s.index()].pos.distance_m(&rx) > 50.0, "sender {s:?}");
        }
    }
}
