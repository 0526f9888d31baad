//! One simulated phone's apps, screens and state (being written).
