//! The authorizer as Python reaches it (`Server.set_acls`, `Server.authorize`,
//! `Server.authorize_by_resource_type`): the Python handlers ask the same
//! [`crate::acl::Authorizer`] the natively served APIs check.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::acl::{AclBinding, Authorizer, Operation, PatternType, Permission, ResourceType};

/// (resource type, pattern type, resource name, principal, host, operation, permission), each
/// code as Kafka's protocol has it.
pub(super) type PyAcl = (i8, i8, String, String, String, i8, i8);

fn invalid(what: &str, code: i8) -> PyErr {
    PyValueError::new_err(format!("unknown {what} code {code}"))
}

fn resource_type(code: i8) -> PyResult<ResourceType> {
    ResourceType::from_code(code).ok_or_else(|| invalid("resource type", code))
}

fn operation(code: i8) -> PyResult<Operation> {
    Operation::from_code(code).ok_or_else(|| invalid("operation", code))
}

pub(super) fn set_acls(authorizer: &Authorizer, acls: Vec<PyAcl>) -> PyResult<()> {
    let mut bindings = Vec::with_capacity(acls.len());
    for (rtype, pattern, name, principal, host, op, permission) in acls {
        bindings.push(AclBinding {
            resource_type: resource_type(rtype)?,
            pattern_type: PatternType::from_code(pattern)
                .ok_or_else(|| invalid("pattern", pattern))?,
            name,
            principal,
            host,
            operation: operation(op)?,
            permission: Permission::from_code(permission)
                .ok_or_else(|| invalid("permission", permission))?,
        });
    }
    authorizer.set_acls(&bindings);
    Ok(())
}

pub(super) fn authorize(
    authorizer: &Authorizer,
    principal: &str,
    host: &str,
    op: i8,
    rtype: i8,
    names: Vec<String>,
) -> PyResult<Vec<bool>> {
    let (op, rtype) = (operation(op)?, resource_type(rtype)?);
    Ok(names
        .iter()
        .map(|name| authorizer.authorize(principal, host, op, rtype, name))
        .collect())
}

pub(super) fn authorize_by_resource_type(
    authorizer: &Authorizer,
    principal: &str,
    host: &str,
    op: i8,
    rtype: i8,
) -> PyResult<bool> {
    Ok(authorizer.authorize_by_resource_type(
        principal,
        host,
        operation(op)?,
        resource_type(rtype)?,
    ))
}
