//! Kafka properties as the native core reads them.
//!
//! The control plane owns the one config table (`python/ferrolog/config/table.py`) and passes
//! the native core resolved maps: every property the core reads, and nothing else. [`table`]
//! is generated from that table and names each of those properties with its type, bounds and
//! allowed values; [`Props`] reads a map through it. So the structs built here
//! (`ServerConfig`, `LogConfig`) have no defaults or bounds of their own: a property missing
//! from the map, one the core does not read, or one out of the table's bounds is an error, and
//! a change of the table reaches Rust by regenerating `table.rs`.

pub mod table;

use std::collections::HashMap;
use std::str::FromStr;

/// A property's type, as DescribeConfigs names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Boolean,
    Short,
    Int,
    Long,
    Double,
    String,
    List,
}

impl Kind {
    /// The values an integer kind holds (Kafka's short, int and long are Java's).
    fn integer_range(self) -> Option<(i64, i64)> {
        match self {
            Kind::Short => Some((i16::MIN.into(), i16::MAX.into())),
            Kind::Int => Some((i32::MIN.into(), i32::MAX.into())),
            Kind::Long => Some((i64::MIN, i64::MAX)),
            _ => None,
        }
    }
}

/// One property of the table.
#[derive(Debug)]
pub struct Property {
    pub name: &'static str,
    pub kind: Kind,
    /// What the control plane passes when nothing is configured; for tests, and for
    /// [`names_read`]. None: a property without a default (Kafka's null), which the control
    /// plane passes only when it is set, read with [`Props::optional_integer`].
    pub default: Option<&'static str>,
    pub min: Option<f64>,
    pub max: Option<f64>,
    /// Allowed values (of each element, for a list); empty: any.
    pub choices: &'static [&'static str],
}

/// Reads properties from a resolved map, checking each against its [`Property`], and records
/// which ones were read so [`Props::finish`] can refuse a map with names nobody reads.
pub struct Props<'a> {
    map: &'a HashMap<String, String>,
    read: Vec<&'static str>,
    /// Kafka's listener-prefixed overrides read (`listener.name.<name>.<property>`).
    overrides_read: Vec<String>,
}

impl<'a> Props<'a> {
    pub fn new(map: &'a HashMap<String, String>) -> Props<'a> {
        Props {
            map,
            read: Vec::new(),
            overrides_read: Vec::new(),
        }
    }

    /// A string property without a default: None when the map does not hold it.
    pub fn optional_text(&mut self, p: &'static Property) -> Result<Option<&'a str>, String> {
        if self.map.contains_key(p.name) {
            return self.text(p).map(Some);
        }
        self.read.push(p.name);
        Ok(None)
    }

    /// Kafka's per-listener override of a string property,
    /// `listener.name.<listener in lower case>.<property>`, else the property itself (None
    /// when neither is set).
    pub fn listener_text(
        &mut self,
        listener: &str,
        p: &'static Property,
    ) -> Result<Option<&'a str>, String> {
        let name = format!("listener.name.{}.{}", listener.to_ascii_lowercase(), p.name);
        if let Some(value) = self.map.get(&name) {
            let value = value.trim();
            check_choice(p, value).map_err(|e| format!("{name}: {e}"))?;
            self.overrides_read.push(name);
            return Ok(Some(value));
        }
        self.optional_text(p)
    }

    /// A list property, overridden per listener as [`Props::listener_text`].
    pub fn listener_list(
        &mut self,
        listener: &str,
        p: &'static Property,
    ) -> Result<Vec<&'a str>, String> {
        let name = format!("listener.name.{}.{}", listener.to_ascii_lowercase(), p.name);
        let Some(value) = self.map.get(&name) else {
            return self.list(p);
        };
        self.overrides_read.push(name.clone());
        let items: Vec<&'a str> = value
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect();
        for item in &items {
            check_choice(p, item).map_err(|e| format!("{name}: {e}"))?;
        }
        Ok(items)
    }

    fn raw(&mut self, p: &'static Property) -> Result<&'a str, String> {
        self.read.push(p.name);
        self.map
            .get(p.name)
            .map(|v| v.trim())
            .ok_or_else(|| format!("{} is missing", p.name))
    }

    /// An integer property (short, int or long), within its type and the table's bounds,
    /// converted to the field's type `T`.
    pub fn integer<T: TryFrom<i64>>(&mut self, p: &'static Property) -> Result<T, String> {
        let text = self.raw(p)?;
        let (low, high) = p
            .kind
            .integer_range()
            .ok_or_else(|| format!("{} is not an integer property", p.name))?;
        let value: i64 = parse_value(p, text)?;
        if !(low..=high).contains(&value) {
            return Err(format!("{}: {value} is out of range", p.name));
        }
        // Exact for every bound the table holds (small integers).
        #[allow(clippy::cast_precision_loss)]
        check_bounds(p, value as f64)?;
        T::try_from(value).map_err(|_| format!("{}: {value} is out of range", p.name))
    }

    /// An integer property without a default: None when the map does not hold it.
    pub fn optional_integer<T: TryFrom<i64>>(
        &mut self,
        p: &'static Property,
    ) -> Result<Option<T>, String> {
        if self.map.contains_key(p.name) {
            return self.integer(p).map(Some);
        }
        self.read.push(p.name);
        Ok(None)
    }

    pub fn double(&mut self, p: &'static Property) -> Result<f64, String> {
        let text = self.raw(p)?;
        let value: f64 = parse_value(p, text)?;
        if !value.is_finite() {
            return Err(format!("{}: {text:?} is not a finite number", p.name));
        }
        check_bounds(p, value)?;
        Ok(value)
    }

    /// A boolean property: `true` or `false`, as Kafka's `ConfigDef` parses it.
    pub fn boolean(&mut self, p: &'static Property) -> Result<bool, String> {
        let text = self.raw(p)?;
        match text.to_ascii_lowercase().as_str() {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(format!("{}: {text:?} is not a boolean", p.name)),
        }
    }

    /// A string property, one of its choices if the table lists any.
    pub fn text(&mut self, p: &'static Property) -> Result<&'a str, String> {
        let text = self.raw(p)?;
        check_choice(p, text)?;
        Ok(text)
    }

    /// A list property: its comma-separated, non-empty elements, each one of the choices if
    /// the table lists any.
    pub fn list(&mut self, p: &'static Property) -> Result<Vec<&'a str>, String> {
        let items: Vec<&'a str> = self
            .raw(p)?
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect();
        for item in &items {
            check_choice(p, item)?;
        }
        Ok(items)
    }

    /// Ends reading: an error if the map holds a name that was not read, which means the
    /// control plane thinks the core reads a property it does not.
    pub fn finish(self) -> Result<Vec<&'static str>, String> {
        let mut unread: Vec<&str> = self
            .map
            .keys()
            .map(String::as_str)
            .filter(|k| !self.read.contains(k) && !self.overrides_read.iter().any(|o| o == k))
            .collect();
        if unread.is_empty() {
            return Ok(self.read);
        }
        unread.sort_unstable();
        Err(format!(
            "not properties the native core reads: {}",
            unread.join(", ")
        ))
    }
}

fn parse_value<T: FromStr>(p: &Property, text: &str) -> Result<T, String> {
    text.parse()
        .map_err(|_| format!("{}: {text:?} is not a valid {:?}", p.name, p.kind))
}

fn check_bounds(p: &Property, value: f64) -> Result<(), String> {
    if let Some(min) = p.min.filter(|min| value < *min) {
        return Err(format!("{}: {value} is below {min}", p.name));
    }
    if let Some(max) = p.max.filter(|max| value > *max) {
        return Err(format!("{}: {value} is above {max}", p.name));
    }
    Ok(())
}

fn check_choice(p: &Property, value: &str) -> Result<(), String> {
    if p.choices.is_empty() || p.choices.contains(&value) {
        return Ok(());
    }
    Err(format!(
        "{}: {value:?} is not one of {}",
        p.name,
        p.choices.join(", ")
    ))
}

/// The table's defaults of `properties`, as the control plane would pass them: without the
/// properties that have none.
pub fn defaults(properties: &[&Property]) -> HashMap<String, String> {
    properties
        .iter()
        .filter_map(|p| Some((p.name.to_string(), p.default?.to_string())))
        .collect()
}

/// Parses a resolved map with `read`: every property `read` reads must be in the map, and
/// nothing else.
pub fn parse<T>(
    map: &HashMap<String, String>,
    read: fn(&mut Props<'_>) -> Result<T, String>,
) -> Result<T, String> {
    let mut props = Props::new(map);
    let value = read(&mut props)?;
    props.finish()?;
    Ok(value)
}

/// A property's default as a value, for state that exists before the server's config reaches
/// it. Panics only if the generated table holds a default that does not parse, which the
/// tests of this module rule out.
pub fn default_of<T: FromStr>(p: &Property) -> T
where
    T::Err: std::fmt::Debug,
{
    p.default
        .expect("a property with a default")
        .parse()
        .expect("the generated table's default parses")
}

/// The names `read` reads, found by running it over the defaults of `properties`: what the
/// native core declares it reads, for the control plane's check against the table.
pub fn names_read<T>(
    properties: &[&Property],
    read: fn(&mut Props<'_>) -> Result<T, String>,
) -> Result<Vec<&'static str>, String> {
    let map = defaults(properties);
    let mut props = Props::new(&map);
    read(&mut props)?;
    // A property read once per listener (the SSL ones) is named once.
    let mut names = props.read;
    let mut seen = std::collections::HashSet::new();
    names.retain(|name| seen.insert(*name));
    Ok(names)
}

/// Test helper: the names of `properties`, sorted.
#[cfg(test)]
pub fn sorted_names(properties: &[&Property]) -> Vec<&'static str> {
    let mut names: Vec<&'static str> = properties.iter().map(|p| p.name).collect();
    names.sort_unstable();
    names
}

/// Test helper: the defaults of `properties` with `overrides` on top.
#[cfg(test)]
pub fn with_defaults(
    properties: &[&Property],
    overrides: &[(&str, &str)],
) -> HashMap<String, String> {
    let mut map = defaults(properties);
    for (k, v) in overrides {
        map.insert((*k).to_string(), (*v).to_string());
    }
    map
}

#[cfg(test)]
mod tests;
