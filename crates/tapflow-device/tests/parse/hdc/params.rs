//! `param get` of each `const.*` property.

use tapflow_device::hdc::parse::param::parse_param;

use super::cleaned;

fn param(name: &str) -> Result<String, String> {
    parse_param(&cleaned(name))
}

#[test]
fn param_get_const_ohos_apiversion() {
    assert_eq!(
        param("param_get_const_ohos_apiversion.txt").as_deref(),
        Ok("12")
    );
}

#[test]
fn param_get_const_product_brand() {
    assert_eq!(
        param("param_get_const_product_brand.txt").as_deref(),
        Ok("HUAWEI")
    );
}

#[test]
fn param_get_const_product_cpu_abilist() {
    assert_eq!(
        param("param_get_const_product_cpu_abilist.txt").as_deref(),
        Ok("arm64-v8a")
    );
}

#[test]
fn param_get_const_product_model() {
    assert_eq!(
        param("param_get_const_product_model.txt").as_deref(),
        Ok("ALN-AL00")
    );
}

#[test]
fn param_get_const_product_name() {
    assert_eq!(
        param("param_get_const_product_name.txt").as_deref(),
        Ok("HUAWEI Mate 60 Pro")
    );
}

#[test]
fn param_get_const_product_software_version() {
    assert_eq!(
        param("param_get_const_product_software_version.txt").as_deref(),
        Ok("ALN-AL00 5.0.0.22(SP35DEVC00E22R4P1log)")
    );
}
