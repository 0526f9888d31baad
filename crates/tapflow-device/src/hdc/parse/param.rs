//! `param get <key>`: the value, or the device's refusal (`Get parameter "x" fail! errNum is:106!`).

/// The value with trailing whitespace (and the final newline) removed; leading whitespace is part
/// of the value. `Err` carries the refusal line verbatim.
pub fn parse_param(text: &str) -> Result<String, String> {
    let value = text.trim_end();
    if let Some(line) = value
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("Get parameter") && l.contains("fail!"))
    {
        return Err(line.to_string());
    }
    if let Some(f) = super::failure::detect_hdc_failure(text) {
        return Err(f.message().to_string());
    }
    Ok(value.replace('\r', ""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_key_is_an_error() {
        assert_eq!(
            parse_param("Get parameter \"const.x\" fail! errNum is:106!\n"),
            Err("Get parameter \"const.x\" fail! errNum is:106!".into())
        );
    }

    #[test]
    fn value_trimmed_at_the_end_only() {
        assert_eq!(parse_param("12 \r\n"), Ok("12".into()));
        assert_eq!(
            parse_param("HUAWEI Mate 60 Pro\n"),
            Ok("HUAWEI Mate 60 Pro".into())
        );
        assert_eq!(parse_param(""), Ok(String::new()));
    }

    #[test]
    fn hdc_failure_is_not_a_value() {
        assert_eq!(
            parse_param("[Fail]No any connected target\n"),
            Err("[Fail]No any connected target".into())
        );
    }
}
