//! Identity of a simulated Android phone: what `getprop`, `wm size` and the adb banner report.
//! Two real product lines so multi-device setups differ (even indices a Pixel 7, odd ones a
//! Pixel 6a), both 1080x2400 on Android 13 (API 33).

use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AndroidProfile {
    /// `ro.serialno` (the adb serial of a network device is its `HOST:PORT` instead).
    pub serialno: String,
    /// `ro.product.model`, e.g. `Pixel 7`.
    pub model: String,
    /// `ro.product.name`, e.g. `panther`.
    pub product: String,
    /// `ro.product.device`.
    pub device: String,
    pub brand: String,
    pub manufacturer: String,
    /// `ro.build.version.release`.
    pub release: String,
    pub sdk: u32,
    pub abi: String,
    /// Physical pixels.
    pub screen: (u32, u32),
    pub density: u32,
    pub build_id: String,
}

impl AndroidProfile {
    pub fn default_for(serialno: &str, index: usize) -> Self {
        let (model, product) = if index.is_multiple_of(2) {
            ("Pixel 7", "panther")
        } else {
            ("Pixel 6a", "bluejay")
        };
        Self {
            serialno: serialno.to_string(),
            model: model.to_string(),
            product: product.to_string(),
            device: product.to_string(),
            brand: "google".to_string(),
            manufacturer: "Google".to_string(),
            release: "13".to_string(),
            sdk: 33,
            abi: "arm64-v8a".to_string(),
            screen: (1080, 2400),
            density: 420,
            build_id: "TQ3A.230901.001".to_string(),
        }
    }

    /// `getprop` as the device lists it (sorted, `[key]: [value]`).
    pub fn props(&self) -> BTreeMap<String, String> {
        let fingerprint = format!(
            "{}/{}/{}:{}/{}/10754064:user/release-keys",
            self.brand, self.product, self.device, self.release, self.build_id
        );
        [
            ("ro.product.model", self.model.clone()),
            ("ro.product.name", self.product.clone()),
            ("ro.product.device", self.device.clone()),
            ("ro.product.brand", self.brand.clone()),
            ("ro.product.manufacturer", self.manufacturer.clone()),
            ("ro.product.cpu.abi", self.abi.clone()),
            (
                "ro.product.cpu.abilist",
                format!("{},armeabi-v7a,armeabi", self.abi),
            ),
            ("ro.build.version.release", self.release.clone()),
            ("ro.build.version.sdk", self.sdk.to_string()),
            ("ro.build.id", self.build_id.clone()),
            ("ro.build.display.id", format!("{}.A1", self.build_id)),
            ("ro.build.fingerprint", fingerprint),
            ("ro.build.type", "user".into()),
            ("ro.build.characteristics", "nosdcard".into()),
            ("ro.serialno", self.serialno.clone()),
            ("ro.boot.serialno", self.serialno.clone()),
            ("ro.adb.secure", "0".into()),
            ("ro.debuggable", "0".into()),
            ("ro.sf.lcd_density", self.density.to_string()),
            ("sys.boot_completed", "1".into()),
            ("persist.sys.locale", "en-US".into()),
            ("persist.sys.timezone", "UTC".into()),
            ("service.adb.tcp.port", "5555".into()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
    }

    /// The phone model's profile (screen and identity) for the shared [`crate::phone`].
    pub fn phone_profile(&self) -> crate::phone::PhoneProfile {
        crate::phone::PhoneProfile {
            serial: self.serialno.clone(),
            model: self.model.clone(),
            name: self.product.clone(),
            brand: self.brand.clone(),
            software_version: self.build_id.clone(),
            api_level: self.sdk,
            device_type: "phone".to_string(),
            cpu_abi: self.abi.clone(),
            screen: self.screen,
        }
    }
}
