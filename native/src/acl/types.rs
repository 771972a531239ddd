//! Kafka's ACL vocabulary with its wire codes (`ResourceType`, `PatternType`, `AclOperation`,
//! `AclPermissionType`), and one ACL binding.

/// Kafka's `ResourceType`, the ones an ACL can name (its codes on the wire).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ResourceType {
    Topic = 2,
    Group = 3,
    Cluster = 4,
    TransactionalId = 5,
    DelegationToken = 6,
    User = 7,
}

impl ResourceType {
    pub fn from_code(code: i8) -> Option<ResourceType> {
        Some(match code {
            2 => ResourceType::Topic,
            3 => ResourceType::Group,
            4 => ResourceType::Cluster,
            5 => ResourceType::TransactionalId,
            6 => ResourceType::DelegationToken,
            7 => ResourceType::User,
            _ => return None,
        })
    }
}

/// Kafka's `PatternType` of a stored ACL: a literal name (`*` matching every name) or a
/// prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PatternType {
    Literal = 3,
    Prefixed = 4,
}

impl PatternType {
    pub fn from_code(code: i8) -> Option<PatternType> {
        match code {
            3 => Some(PatternType::Literal),
            4 => Some(PatternType::Prefixed),
            _ => None,
        }
    }
}

/// Kafka's `AclOperation` (without UNKNOWN and ANY, which only filters have).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operation {
    All = 2,
    Read = 3,
    Write = 4,
    Create = 5,
    Delete = 6,
    Alter = 7,
    Describe = 8,
    ClusterAction = 9,
    DescribeConfigs = 10,
    AlterConfigs = 11,
    IdempotentWrite = 12,
    CreateTokens = 13,
    DescribeTokens = 14,
}

impl Operation {
    pub fn from_code(code: i8) -> Option<Operation> {
        Some(match code {
            2 => Operation::All,
            3 => Operation::Read,
            4 => Operation::Write,
            5 => Operation::Create,
            6 => Operation::Delete,
            7 => Operation::Alter,
            8 => Operation::Describe,
            9 => Operation::ClusterAction,
            10 => Operation::DescribeConfigs,
            11 => Operation::AlterConfigs,
            12 => Operation::IdempotentWrite,
            13 => Operation::CreateTokens,
            14 => Operation::DescribeTokens,
            _ => return None,
        })
    }

    /// The operations whose ALLOW grants this one: READ, WRITE, DELETE and ALTER imply
    /// DESCRIBE, ALTER_CONFIGS implies DESCRIBE_CONFIGS (ALL, which grants every operation,
    /// is matched separately).
    pub fn implied_by(self) -> &'static [Operation] {
        match self {
            Operation::Describe => &[
                Operation::Describe,
                Operation::Read,
                Operation::Write,
                Operation::Delete,
                Operation::Alter,
            ],
            Operation::DescribeConfigs => &[Operation::DescribeConfigs, Operation::AlterConfigs],
            Operation::All => &[Operation::All],
            Operation::Read => &[Operation::Read],
            Operation::Write => &[Operation::Write],
            Operation::Create => &[Operation::Create],
            Operation::Delete => &[Operation::Delete],
            Operation::Alter => &[Operation::Alter],
            Operation::ClusterAction => &[Operation::ClusterAction],
            Operation::AlterConfigs => &[Operation::AlterConfigs],
            Operation::IdempotentWrite => &[Operation::IdempotentWrite],
            Operation::CreateTokens => &[Operation::CreateTokens],
            Operation::DescribeTokens => &[Operation::DescribeTokens],
        }
    }
}

/// Kafka's `AclPermissionType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Permission {
    Deny = 2,
    Allow = 3,
}

impl Permission {
    pub fn from_code(code: i8) -> Option<Permission> {
        match code {
            2 => Some(Permission::Deny),
            3 => Some(Permission::Allow),
            _ => None,
        }
    }
}

/// One ACL: a resource pattern and an access control entry (Kafka's `AclBinding`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AclBinding {
    pub resource_type: ResourceType,
    pub pattern_type: PatternType,
    pub name: String,
    /// `User:<name>`, or `User:*` for everyone.
    pub principal: String,
    /// An IP address, or `*` for every host.
    pub host: String,
    pub operation: Operation,
    pub permission: Permission,
}
