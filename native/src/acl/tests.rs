use super::*;

fn acl(
    resource_type: ResourceType,
    pattern_type: PatternType,
    name: &str,
    principal: &str,
    operation: Operation,
    permission: Permission,
) -> AclBinding {
    AclBinding {
        resource_type,
        pattern_type,
        name: name.into(),
        principal: principal.into(),
        host: "*".into(),
        operation,
        permission,
    }
}

fn authorizer(acls: &[AclBinding], super_users: &str, allow_if_none: bool) -> Authorizer {
    let config = AuthorizerConfig::parse(AUTHORIZER_CLASSES[0], Some(super_users), allow_if_none)
        .expect("config");
    let authorizer = Authorizer::new(config);
    authorizer.set_acls(acls);
    authorizer
}

use Operation::*;
use PatternType::*;
use Permission::*;
use ResourceType::*;

#[test]
fn an_unknown_authorizer_class_is_refused() {
    assert!(AuthorizerConfig::parse("com.example.Mine", None, false).is_err());
    assert!(!AuthorizerConfig::parse("", None, false).unwrap().enabled);
    assert!(
        AuthorizerConfig::parse(AUTHORIZER_CLASSES[1], None, false)
            .unwrap()
            .enabled
    );
}

#[test]
fn literal_prefixed_and_wildcard_patterns_match() {
    let a = authorizer(
        &[
            acl(Topic, Literal, "orders", "User:alice", Read, Allow),
            acl(Topic, Prefixed, "pay", "User:bob", Write, Allow),
            acl(Group, Literal, "*", "User:*", Read, Allow),
        ],
        "",
        false,
    );
    assert!(a.authorize("User:alice", "1.2.3.4", Read, Topic, "orders"));
    assert!(!a.authorize("User:alice", "1.2.3.4", Read, Topic, "orders2"));
    assert!(!a.authorize("User:bob", "1.2.3.4", Read, Topic, "orders"));
    assert!(a.authorize("User:bob", "1.2.3.4", Write, Topic, "payments"));
    assert!(!a.authorize("User:bob", "1.2.3.4", Write, Topic, "pa"));
    assert!(a.authorize("User:anyone", "1.2.3.4", Read, Group, "g"));
    // No ACL at all on the resource: closed unless allow.everyone.if.no.acl.found.
    assert!(!a.authorize("User:alice", "1.2.3.4", Read, Topic, "other"));
}

#[test]
fn deny_wins_and_implied_operations() {
    let a = authorizer(
        &[
            acl(Topic, Literal, "t", "User:*", All, Allow),
            acl(Topic, Prefixed, "t", "User:eve", Write, Deny),
            acl(Topic, Literal, "u", "User:alice", Write, Allow),
            acl(Topic, Literal, "v", "User:alice", AlterConfigs, Allow),
        ],
        "",
        false,
    );
    assert!(a.authorize("User:alice", "h", Write, Topic, "t"));
    assert!(!a.authorize("User:eve", "h", Write, Topic, "t"));
    // A deny of WRITE does not deny DESCRIBE.
    assert!(a.authorize("User:eve", "h", Describe, Topic, "t"));
    assert!(a.authorize("User:alice", "h", Describe, Topic, "u"));
    assert!(!a.authorize("User:alice", "h", Read, Topic, "u"));
    assert!(a.authorize("User:alice", "h", DescribeConfigs, Topic, "v"));
    assert!(!a.authorize("User:alice", "h", Describe, Topic, "v"));
}

#[test]
fn hosts_super_users_and_allow_if_none() {
    let mut host_acl = acl(Topic, Literal, "t", "User:alice", Read, Allow);
    host_acl.host = "10.0.0.1".into();
    let a = authorizer(&[host_acl], "User:admin; User:ops", true);
    assert!(a.authorize("User:alice", "10.0.0.1", Read, Topic, "t"));
    assert!(!a.authorize("User:alice", "10.0.0.2", Read, Topic, "t"));
    assert!(a.authorize("User:ops", "10.0.0.2", Read, Topic, "t"));
    assert!(a.authorize("User:bob", "10.0.0.2", Read, Topic, "no-acls"));
}

#[test]
fn by_resource_type() {
    let a = authorizer(
        &[
            acl(Topic, Literal, "a", "User:alice", Write, Allow),
            acl(Topic, Prefixed, "a", "User:bob", Write, Allow),
            acl(Topic, Literal, "b", "User:carol", Write, Allow),
            acl(Topic, Prefixed, "b", "User:carol", Write, Deny),
        ],
        "",
        false,
    );
    assert!(a.authorize_by_resource_type("User:alice", "h", Write, Topic));
    assert!(a.authorize_by_resource_type("User:bob", "h", Write, Topic));
    assert!(!a.authorize_by_resource_type("User:carol", "h", Write, Topic));
    assert!(!a.authorize_by_resource_type("User:dave", "h", Write, Topic));
}

#[test]
fn sessions_see_new_acls() {
    let a = authorizer(&[], "", false);
    let mut session = Session::new("User:alice".into(), "h".into());
    assert!(!session.authorize(&a, Read, Topic, "t"));
    a.set_acls(&[acl(Topic, Literal, "t", "User:alice", Read, Allow)]);
    assert!(session.authorize(&a, Read, Topic, "t"));
    let off = Authorizer::default();
    assert!(session.authorize(&off, Write, Topic, "t"));
}
