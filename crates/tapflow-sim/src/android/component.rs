//! How Android names components: an ability's activity class and the short form Android
//! prints (`com.x/.Main`).

/// The activity class of an app's ability: its name when qualified, else `<package>.<name>`.
pub fn activity_class(package: &str, ability: &str) -> String {
    if ability.contains('.') {
        ability.to_string()
    } else {
        format!("{package}.{ability}")
    }
}

/// A class relative to its package, as Android prints components (`com.x/.Main`).
pub fn short_class(package: &str, class: &str) -> String {
    match class.strip_prefix(package) {
        Some(rest) if rest.starts_with('.') => rest.to_string(),
        _ => class.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_are_qualified_and_shortened_as_android_prints_them() {
        assert_eq!(
            activity_class("com.x", "EntryAbility"),
            "com.x.EntryAbility"
        );
        assert_eq!(short_class("com.x", "com.x.EntryAbility"), ".EntryAbility");
        assert_eq!(short_class("com.x", "org.y.Z"), "org.y.Z");
    }
}
