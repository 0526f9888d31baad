//! `param get <key>`: the value, or the device's refusal (`Get parameter "x" fail! errNum is:106!`).

pub fn parse_param(text: &str) -> Result<String, String> {
    todo!("parsers helper: {text}")
}
