//! What the validator reports: where (a path, and the value itself, which for the flow
//! compiler carries its span) and what (a [`Problem`]). Front ends word them.

use std::borrow::Cow;

use serde_json::Value;

use super::Instance;

/// One step of a path from the value checked to the value at fault.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seg<'a> {
    /// A property of an object.
    Prop(&'a str),
    /// An item of an array (from 0).
    Item(usize),
}

/// A value the schema refuses, or a property it lacks.
#[derive(Debug)]
pub struct Finding<'a, I: Instance<'a>> {
    /// From the value checked to the value at fault; for [`Problem::Unknown`] and
    /// [`Problem::Missing`], to the object.
    pub path: Vec<Seg<'a>>,
    /// The value at fault: for [`Problem::Unknown`] the unknown property's value, for
    /// [`Problem::Missing`] the object (`None` for the outermost object, given as entries).
    pub at: Option<I>,
    pub problem: Problem<'a, I>,
}

/// What is wrong.
#[derive(Debug)]
pub enum Problem<'a, I: Instance<'a>> {
    /// The value is of none of the types the schema allows. `schema` is the value's schema
    /// (`$ref` resolved), for saying what was expected.
    WrongType { schema: &'a Value },
    /// The value has an allowed type, and a rule refuses it. `value` is the value as judged
    /// (a flow's plain scalar as the type it was read as).
    NotAllowed {
        rule: Rule<'a>,
        value: Cow<'a, Value>,
    },
    /// A property the object's schema does not have, and does not allow
    /// (`additionalProperties: false`). `known`: the properties it has, in schema order.
    Unknown { key: I::Key, known: Vec<&'a str> },
    /// A required property is absent. `schema` is the property's own (resolved), if declared.
    Missing {
        name: &'a str,
        schema: Option<&'a Value>,
    },
    /// No branch of an `anyOf`/`oneOf` accepts the value: the branches, and what each found.
    NoBranch {
        branches: &'a [Value],
        findings: Vec<Vec<Finding<'a, I>>>,
    },
}

/// The rule that refused a value of the right type.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Rule<'a> {
    /// Not one of `enum`'s values.
    Enum(&'a [Value]),
    /// Not `const`'s value.
    Const(&'a Value),
    /// Outside an integer `format`'s range (`uint8`: 0..=255).
    Format {
        format: &'a str,
        min: i128,
        max: i128,
    },
    /// Below `minimum`.
    Minimum(f64),
    /// Above `maximum`.
    Maximum(f64),
}
