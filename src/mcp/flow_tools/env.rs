//! A flow tool's `env` (flow variables, like `tapflow run --env NAME=value`): published as a
//! list of `{name, value}`, since strict-mode tool converters (OpenAI's among them) refuse an
//! object whose keys are free (`additionalProperties` a schema). A `{NAME: value}` map is still
//! accepted (older callers, hand-written JSON); the schema keeps it as a `deprecated` branch,
//! which the published schema leaves out.

use std::borrow::Cow;
use std::collections::BTreeMap;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer};

/// The variables, by name.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct FlowEnv(pub BTreeMap<String, String>);

impl FromIterator<(String, String)> for FlowEnv {
    fn from_iter<I: IntoIterator<Item = (String, String)>>(vars: I) -> Self {
        FlowEnv(vars.into_iter().collect())
    }
}

/// One variable.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct EnvVar {
    name: String,
    value: String,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Form {
    List(Vec<EnvVar>),
    Map(BTreeMap<String, String>),
}

impl<'de> Deserialize<'de> for FlowEnv {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let form = Form::deserialize(d).map_err(|_| {
            serde::de::Error::custom(
                "env must be a list of {name, value} (strings), e.g. [{\"name\": \"USER\", \"value\": \"alice\"}]",
            )
        })?;
        match form {
            Form::Map(m) => Ok(FlowEnv(m)),
            Form::List(vars) => {
                let mut out = BTreeMap::new();
                for v in vars {
                    if out.contains_key(&v.name) {
                        return Err(serde::de::Error::custom(format!(
                            "env: variable `{}` is given twice; give each once",
                            v.name
                        )));
                    }
                    out.insert(v.name, v.value);
                }
                Ok(FlowEnv(out))
            }
        }
    }
}

impl JsonSchema for FlowEnv {
    fn schema_name() -> Cow<'static, str> {
        "FlowEnv".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let var = generator.subschema_for::<EnvVar>();
        json_schema!({
            "anyOf": [
                {"type": "array", "items": var},
                {"type": "object", "additionalProperties": {"type": "string"}, "deprecated": true}
            ]
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_list_or_a_map_gives_the_variables_and_a_name_twice_is_refused() {
        let list: FlowEnv = serde_json::from_value(
            json!([{"name": "U", "value": "a"}, {"name": "P", "value": "b"}]),
        )
        .unwrap();
        let map: FlowEnv = serde_json::from_value(json!({"U": "a", "P": "b"})).unwrap();
        assert_eq!(list, map);
        let twice = serde_json::from_value::<FlowEnv>(
            json!([{"name": "U", "value": "a"}, {"name": "U", "value": "b"}]),
        )
        .unwrap_err();
        assert!(twice.to_string().contains("given twice"), "{twice}");
        let bad = serde_json::from_value::<FlowEnv>(json!([{"name": "U"}])).unwrap_err();
        assert!(bad.to_string().contains("{name, value}"), "{bad}");
    }
}
