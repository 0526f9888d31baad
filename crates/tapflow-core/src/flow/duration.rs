//! Durations in flow files: an integer is milliseconds; a string is a sum of `<n><unit>` parts
//! with units `ms`, `s`, `m`, `h` (`1500`, `"1.5s"` is rejected, `"1m30s"`, `"250ms"`).

/// Parses a duration string into milliseconds; `Err` says what was wrong.
pub fn parse_ms(text: &str) -> Result<u64, String> {
    let t = text.trim();
    if t.is_empty() {
        return Err("empty duration".into());
    }
    if let Ok(ms) = t.parse::<u64>() {
        return Ok(ms);
    }
    let mut total: u64 = 0;
    let mut rest = t;
    while !rest.is_empty() {
        let digits = rest.chars().take_while(|c| c.is_ascii_digit()).count();
        if digits == 0 {
            return Err(format!("expected a number at `{rest}`"));
        }
        let n: u64 = rest[..digits]
            .parse()
            .map_err(|_| "number too large".to_string())?;
        rest = &rest[digits..];
        if rest.starts_with('.') {
            return Err("fractions are not supported (write `1500ms` for 1.5 s)".into());
        }
        let unit_len = rest.chars().take_while(|c| c.is_ascii_alphabetic()).count();
        let unit = &rest[..unit_len];
        let factor = match unit {
            "ms" => 1,
            "s" => 1_000,
            "m" => 60_000,
            "h" => 3_600_000,
            "" => return Err("missing unit (use ms, s, m or h)".into()),
            other => return Err(format!("unknown unit `{other}` (use ms, s, m or h)")),
        };
        total = n
            .checked_mul(factor)
            .and_then(|v| total.checked_add(v))
            .ok_or_else(|| "duration too large".to_string())?;
        rest = &rest[unit_len..];
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_units_and_sums() {
        assert_eq!(parse_ms("1500"), Ok(1500));
        assert_eq!(parse_ms("250ms"), Ok(250));
        assert_eq!(parse_ms("1m30s"), Ok(90_000));
        assert_eq!(parse_ms("2h"), Ok(7_200_000));
        assert!(parse_ms("1.5s").unwrap_err().contains("fractions"));
        assert!(parse_ms("10 parsecs").is_err());
        assert!(parse_ms("5").is_ok());
        assert!(parse_ms("99999999999999999999h").is_err());
    }
}
