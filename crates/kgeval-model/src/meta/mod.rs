//! Meta-evaluation result types (computed by `kgeval-meta`, rendered by `kgeval-report`):
//! ranking agreement between system orderings, paired significance per system pair,
//! discriminative power, data sensitivity and pooling.

pub mod agreement;
pub mod compare;
pub mod pool;
pub mod sensitivity;
pub mod significance;
