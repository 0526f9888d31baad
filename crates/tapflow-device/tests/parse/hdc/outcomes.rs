//! Command outcomes: install, uninstall, `aa start` and `uitest dumpLayout`.

use tapflow_device::hdc::parse::{failure::detect_hdc_failure, outcome};

use super::cleaned;

#[test]
fn hdc_install_success() {
    let text = cleaned("hdc_install_success.txt");
    assert_eq!(detect_hdc_failure(&text), None);
    assert_eq!(outcome::install(&text), Ok(()));
}

#[test]
fn hdc_uninstall_success() {
    let text = cleaned("hdc_uninstall_success.txt");
    assert_eq!(detect_hdc_failure(&text), None);
    assert_eq!(outcome::uninstall(&text), Ok(()));
    // The uninstall message is not an install success the other way round.
    assert!(outcome::install("[Info]App install path:/x.hap, msg:\nAppMod finish").is_err());
}

#[test]
fn aa_start_u_stdout() {
    let text = cleaned("aa_start_U_stdout.txt");
    assert_eq!(outcome::aa_start(&text), Ok(()));
    // The same success line is not accepted as another command's success.
    assert!(outcome::aa_force_stop(&text).is_err());
}

#[test]
fn uitest_dumplayout_stdout() {
    let text = cleaned("uitest_dumplayout_stdout.txt");
    assert_eq!(
        outcome::dump_layout(&text),
        Ok("/data/local/tmp/layout_407568854.json".to_string())
    );
}
