//! The phone's identity and hardware profile (what `param get` and `hidumper … screen` report).

/// Identity and screen of one simulated phone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PhoneProfile {
    pub serial: String,
    /// `const.product.model`, e.g. `ALN-AL00`.
    pub model: String,
    /// `const.product.name`, e.g. `HUAWEI Mate 60 Pro`.
    pub name: String,
    pub brand: String,
    pub software_version: String,
    pub api_level: u32,
    /// `const.product.devicetype`: `phone`, `tablet`, `2in1`…
    pub device_type: String,
    pub cpu_abi: String,
    /// Physical pixels (width, height).
    pub screen: (u32, u32),
}

impl PhoneProfile {
    /// Plausible Mate-60-Pro-like defaults; `index` only varies nothing visible today except
    /// that every simulated device keeps its own serial (the lead may vary models per index later).
    pub fn default_for(serial: &str, index: usize) -> Self {
        // Two real product lines so multi-device setups are not all identical: even indices are a
        // Mate 60 Pro (1260x2720), odd ones a Mate 60 (1216x2688), both real resolutions.
        let (model, name, screen, sw) = if index.is_multiple_of(2) {
            (
                "ALN-AL00",
                "HUAWEI Mate 60 Pro",
                (1260, 2720),
                "ALN-AL00 5.0.0.60(SP8C00E60R4P11log)",
            )
        } else {
            (
                "BRA-AL00",
                "HUAWEI Mate 60",
                (1216, 2688),
                "BRA-AL00 5.0.0.60(SP8C00E60R4P11log)",
            )
        };
        Self {
            serial: serial.to_string(),
            model: model.to_string(),
            name: name.to_string(),
            brand: "HUAWEI".to_string(),
            software_version: sw.to_string(),
            api_level: 12,
            device_type: "phone".to_string(),
            cpu_abi: "arm64-v8a".to_string(),
            screen,
        }
    }
}
