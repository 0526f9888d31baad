//! Flows against the real tool registry (`RegistryCatalog`): plans, schema, generated docs, properties.
//! One module per former test file.

mod docs;
mod no_panic;
mod plan;
mod registry_props;
mod schema;
mod validator_agree;
mod validator_props;
