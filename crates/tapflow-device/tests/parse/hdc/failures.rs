//! `clean_output` and hdc failure detection over the file transfer and CRLF captures.

use tapflow_device::hdc::parse::{clean_output, failure::detect_hdc_failure, outcome};

use super::{cleaned, fixture};

#[test]
fn hdc_file_recv_success_log_line_is_dropped() {
    let text = cleaned("hdc_file_recv_success.txt");
    assert_eq!(
        text,
        "FileTransfer finish, Size:71792, File count = 1, time:12ms rate:5982.67kB/s\n"
    );
    assert_eq!(outcome::file_transfer(&text), Ok(()));
    assert_eq!(detect_hdc_failure(&text), None);
}

#[test]
fn hdc_file_send_success() {
    let text = cleaned("hdc_file_send_success.txt");
    assert_eq!(outcome::file_transfer(&text), Ok(()));
    assert_eq!(detect_hdc_failure(&text), None);
}

#[test]
fn aa_dump_l_mission_list_crlf_is_cleaned() {
    let raw = fixture("aa_dump_l_mission_list.txt");
    assert!(raw.contains("\r\n"));
    let text = clean_output(&raw);
    assert!(!text.contains('\r'));
    assert_eq!(text.lines().count(), raw.lines().count());
}
