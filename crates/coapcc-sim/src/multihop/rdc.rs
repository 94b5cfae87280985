//! Radio duty cycling (multihop.md §1.5): NullRDC and ContikiMAC timing (being written).
