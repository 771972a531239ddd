use super::*;

const INT: Property = Property {
    name: "an.int",
    kind: Kind::Int,
    default: Some("5"),
    min: Some(1.0),
    max: Some(10.0),
    choices: &[],
};
const SHORT: Property = Property {
    name: "a.short",
    kind: Kind::Short,
    default: Some("1"),
    min: None,
    max: None,
    choices: &[],
};
const RATIO: Property = Property {
    name: "a.ratio",
    kind: Kind::Double,
    default: Some("0.5"),
    min: Some(0.0),
    max: Some(1.0),
    choices: &[],
};
const POLICY: Property = Property {
    name: "a.list",
    kind: Kind::List,
    default: Some("delete"),
    min: None,
    max: None,
    choices: &["delete", "compact"],
};

fn map(pairs: &[(&str, &str)]) -> HashMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn integers_are_checked_against_their_type_and_bounds() {
    let m = map(&[("an.int", " 7 "), ("a.short", "40000")]);
    let mut p = Props::new(&m);
    assert_eq!(p.integer::<u32>(&INT), Ok(7));
    assert!(p
        .integer::<i64>(&SHORT)
        .unwrap_err()
        .contains("out of range"));
    for bad in ["0", "11", "seven", "1.5"] {
        let m = map(&[("an.int", bad)]);
        let err = Props::new(&m).integer::<i32>(&INT).unwrap_err();
        assert!(err.starts_with("an.int: "), "{bad}: {err}");
    }
    // In range for the table but not for the field's type.
    let m = map(&[("a.short", "-1")]);
    assert!(Props::new(&m).integer::<u16>(&SHORT).is_err());
    let m = map(&[("a.ratio", "1")]);
    let err = Props::new(&m).integer::<i64>(&RATIO).unwrap_err();
    assert!(err.contains("not an integer property"), "{err}");
}

#[test]
fn doubles_are_finite_and_within_bounds() {
    for (value, ok) in [
        ("0.25", true),
        ("1.5", false),
        ("NaN", false),
        ("inf", false),
    ] {
        let m = map(&[("a.ratio", value)]);
        assert_eq!(Props::new(&m).double(&RATIO).is_ok(), ok, "{value}");
    }
}

#[test]
fn lists_and_strings_keep_to_the_choices() {
    let m = map(&[("a.list", "compact, delete,")]);
    assert_eq!(Props::new(&m).list(&POLICY), Ok(vec!["compact", "delete"]));
    let m = map(&[("a.list", "compact,shred")]);
    assert!(Props::new(&m).list(&POLICY).unwrap_err().contains("shred"));
    assert!(Props::new(&m).text(&POLICY).is_err());
}

#[test]
fn a_map_must_hold_what_is_read_and_nothing_else() {
    let m = map(&[("an.int", "5"), ("a.stranger", "1"), ("another", "2")]);
    let mut p = Props::new(&m);
    assert_eq!(p.integer::<i32>(&INT), Ok(5));
    assert!(p
        .integer::<i32>(&SHORT)
        .unwrap_err()
        .contains("a.short is missing"));
    let err = p.finish().unwrap_err();
    assert!(err.ends_with("a.stranger, another"), "{err}");
    let m = map(&[("an.int", "5")]);
    let mut p = Props::new(&m);
    p.integer::<i32>(&INT).unwrap();
    assert_eq!(p.finish(), Ok(vec!["an.int"]));
}

#[test]
fn names_read_runs_the_reader_over_the_defaults() {
    fn read(p: &mut Props<'_>) -> Result<i32, String> {
        p.integer(&INT)
    }
    assert_eq!(names_read(&[&INT, &SHORT], read), Ok(vec!["an.int"]));
    assert!(names_read(&[&SHORT], read).is_err());
}

#[test]
fn every_generated_default_is_valid_for_its_property() {
    for p in table::server::ALL.iter().chain(table::topic::ALL) {
        if p.default.is_none() {
            continue;
        }
        let m = defaults(&[p]);
        let mut props = Props::new(&m);
        let ok = match p.kind {
            Kind::Short | Kind::Int | Kind::Long => props.integer::<i64>(p).map(drop),
            Kind::Double => props.double(p).map(drop),
            Kind::List => props.list(p).map(drop),
            Kind::Boolean | Kind::String => props.text(p).map(drop),
        };
        assert_eq!(ok, Ok(()), "{}", p.name);
    }
    assert_eq!(
        default_of::<i64>(&table::server::PRODUCER_ID_EXPIRATION_MS),
        86_400_000
    );
}

#[test]
fn a_property_without_a_default_is_optional() {
    const OPTIONAL: Property = Property {
        default: None,
        ..INT
    };
    assert!(defaults(&[&OPTIONAL]).is_empty());
    let empty = map(&[]);
    let mut p = Props::new(&empty);
    assert_eq!(p.optional_integer::<i32>(&OPTIONAL), Ok(None));
    assert_eq!(p.finish(), Ok(vec!["an.int"]));
    let set = map(&[("an.int", "7")]);
    assert_eq!(
        Props::new(&set).optional_integer::<i32>(&OPTIONAL),
        Ok(Some(7))
    );
    let bad = map(&[("an.int", "0")]);
    assert!(Props::new(&bad).optional_integer::<i32>(&OPTIONAL).is_err());
}
