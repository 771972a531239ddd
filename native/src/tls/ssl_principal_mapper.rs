//! Kafka's `ssl.principal.mapping.rules` (KIP-371): the name a client certificate's subject
//! gives the connection's principal.
//!
//! The rules are a comma-separated list of `DEFAULT` (the distinguished name unchanged) and
//! `RULE:pattern/replacement/`, optionally followed by `L` or `U` (the result in lower or upper
//! case). The first rule whose pattern matches the whole name applies; when none does, the
//! connection fails authentication. The list is split as Kafka splits it: `\` escapes the next
//! character inside a pattern or replacement (so `\/` does not end it), a comma there belongs to
//! the rule, and empty entries are skipped.
//!
//! Kafka's patterns are Java regular expressions, ours the `regex` crate's. They agree on what
//! rules use (classes, groups, greedy and lazy repetition, anchors, inline flags); what the crate
//! lacks (lookaround, backreferences, possessive repetition) fails at start. One difference
//! remains: `\w`, `\d`, `\s` and `\b` are Unicode-aware here and ASCII in Java, which only
//! matters for subjects outside ASCII.

use regex::{Captures, Regex};

#[derive(Debug)]
pub struct SslPrincipalMapper {
    rules: Vec<Rule>,
}

#[derive(Debug)]
enum Rule {
    Default,
    Rewrite(Rewrite),
}

#[derive(Debug)]
struct Rewrite {
    /// As written, for messages.
    text: String,
    /// Applied to every match in the name, as Java's `replaceAll`.
    pattern: Regex,
    /// The pattern anchored at both ends: Java's `Matcher.matches`, which decides whether the
    /// rule applies, is a match of the whole name and not merely the leftmost match.
    whole: Regex,
    replacement: Vec<Piece>,
    case: Case,
}

#[derive(Debug)]
enum Piece {
    Text(String),
    Group(usize),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Case {
    Keep,
    Lower,
    Upper,
}

impl SslPrincipalMapper {
    /// The mapper of `rules`, or why they are invalid. No rules at all (an empty string) is
    /// valid, as in Kafka, and then no certificate maps to a principal.
    pub fn from_rules(rules: &str) -> Result<Self, String> {
        let mut parsed = Vec::new();
        let mut rest = rules.trim();
        while !rest.is_empty() {
            let (entry, after) = split_entry(rest);
            rest = after.trim_start();
            if !entry.is_empty() {
                parsed.push(parse_rule(entry).map_err(|e| {
                    format!("ssl.principal.mapping.rules: invalid rule `{entry}`: {e}")
                })?);
            }
        }
        Ok(SslPrincipalMapper { rules: parsed })
    }

    /// The principal name of a certificate whose subject is `distinguished_name` (RFC 2253,
    /// as Java's `X500Principal.getName()` writes it); None when no rule applies.
    pub fn name(&self, distinguished_name: &str) -> Option<String> {
        self.rules.iter().find_map(|rule| match rule {
            Rule::Default => Some(distinguished_name.to_string()),
            Rule::Rewrite(rewrite) => rewrite.apply(distinguished_name),
        })
    }
}

/// The first entry of `rules` (which starts with no whitespace), trimmed, and what follows its
/// comma. A RULE's pattern and replacement run to their unescaped `/`, commas included; any
/// other entry runs to the next comma.
fn split_entry(rules: &str) -> (&str, &str) {
    let from = rules
        .strip_prefix("RULE:")
        .and_then(|body| slash_after(body, 0).and_then(|first| slash_after(body, first + 1)))
        .map_or(0, |second| "RULE:".len() + second + 1);
    match rules[from..].find(',') {
        Some(comma) => (rules[..from + comma].trim_end(), &rules[from + comma + 1..]),
        None => (rules.trim_end(), ""),
    }
}

/// The position of the first `/` in `text` from `start` that no `\` escapes.
fn slash_after(text: &str, start: usize) -> Option<usize> {
    let mut chars = text[start..].char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => {
                chars.next()?;
            }
            '/' => return Some(start + i),
            _ => {}
        }
    }
    None
}

fn parse_rule(entry: &str) -> Result<Rule, String> {
    if entry == "DEFAULT" {
        return Ok(Rule::Default);
    }
    let malformed = || "a rule is DEFAULT or RULE:pattern/replacement/ with an optional L or U";
    let body = entry.strip_prefix("RULE:").ok_or_else(malformed)?;
    let first = slash_after(body, 0).ok_or_else(malformed)?;
    let second = slash_after(body, first + 1).ok_or_else(malformed)?;
    let (pattern, replacement) = (&body[..first], &body[first + 1..second]);
    let case = match &body[second + 1..] {
        "" => Case::Keep,
        "L" => Case::Lower,
        "U" => Case::Upper,
        other => return Err(format!("unexpected `{other}` after the replacement")),
    };
    let compile = |text: &str| Regex::new(text).map_err(|e| format!("pattern: {e}"));
    let compiled = compile(pattern)?;
    let whole = compile(&format!("^(?:{pattern})$"))?;
    let replacement = parse_replacement(replacement, &compiled)?;
    Ok(Rule::Rewrite(Rewrite {
        text: entry.to_string(),
        pattern: compiled,
        whole,
        replacement,
        case,
    }))
}

/// Java's replacement syntax, checked against `pattern`'s groups: `$n` and `${name}` are
/// groups and `\` makes the next character literal. A group number takes as many digits as
/// still name a group (`$12` is group 1 then `2` unless there are 12 groups); a number whose
/// first digit names no group is literal text, as Kafka escapes it. What Java would only
/// refuse at the first match (a `$` naming nothing, a trailing `\`) is refused here at start.
fn parse_replacement(text: &str, pattern: &Regex) -> Result<Vec<Piece>, String> {
    let groups = pattern.captures_len() - 1;
    let mut pieces = Vec::new();
    let mut literal = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let group = match c {
            '\\' => {
                literal.push(
                    chars
                        .next()
                        .ok_or("replacement: a trailing \\ escapes nothing")?,
                );
                continue;
            }
            '$' => match chars.peek().copied() {
                Some('{') => {
                    chars.next();
                    let mut name = String::new();
                    loop {
                        match chars.next() {
                            Some('}') => break,
                            Some(c) => name.push(c),
                            None => return Err("replacement: a ${ without its }".into()),
                        }
                    }
                    pattern
                        .capture_names()
                        .position(|n| n == Some(name.as_str()))
                        .ok_or_else(|| format!("replacement: no group named {name:?}"))?
                }
                Some(digit @ '0'..='9') => {
                    let mut number = digit as usize - '0' as usize;
                    if number > groups {
                        if groups == 0 {
                            return Err(format!(
                                "replacement: ${number}, and the pattern has no group"
                            ));
                        }
                        literal.push('$');
                        continue;
                    }
                    chars.next();
                    while let Some(next) = chars.peek().and_then(|c| c.to_digit(10)) {
                        let longer = number * 10 + next as usize;
                        if longer > groups {
                            break;
                        }
                        number = longer;
                        chars.next();
                    }
                    number
                }
                _ => return Err("replacement: a $ names no group (\\$ is a dollar sign)".into()),
            },
            c => {
                literal.push(c);
                continue;
            }
        };
        if !literal.is_empty() {
            pieces.push(Piece::Text(std::mem::take(&mut literal)));
        }
        pieces.push(Piece::Group(group));
    }
    if !literal.is_empty() {
        pieces.push(Piece::Text(literal));
    }
    Ok(pieces)
}

impl Rewrite {
    fn apply(&self, name: &str) -> Option<String> {
        if !self.whole.is_match(name) {
            return None;
        }
        // Java's replaceAll: after an empty match the search moves on a character, after any
        // other it resumes where the match ended, so `.*` replaces "ab" and then the empty
        // string after it (the regex crate's replace_all skips that second, empty match).
        let mut out = String::new();
        let (mut copied, mut from) = (0, 0);
        while from <= name.len() {
            let Some(captures) = self.pattern.captures_at(name, from) else {
                break;
            };
            let matched = captures.get(0).expect("group 0 is the match");
            out.push_str(&name[copied..matched.start()]);
            self.expand(&captures, &mut out);
            copied = matched.end();
            from = match name[matched.end()..].chars().next() {
                Some(c) if matched.is_empty() => matched.end() + c.len_utf8(),
                None if matched.is_empty() => break,
                _ => matched.end(),
            };
        }
        out.push_str(&name[copied..]);
        Some(match self.case {
            Case::Keep => out,
            Case::Lower => out.to_lowercase(),
            Case::Upper => out.to_uppercase(),
        })
    }

    fn expand(&self, captures: &Captures<'_>, out: &mut String) {
        for piece in &self.replacement {
            match piece {
                Piece::Text(text) => out.push_str(text),
                // A group that took no part in the match adds nothing, as in Java.
                Piece::Group(i) => out.push_str(captures.get(*i).map_or("", |m| m.as_str())),
            }
        }
    }
}

impl std::fmt::Display for SslPrincipalMapper {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let rules: Vec<&str> = self
            .rules
            .iter()
            .map(|rule| match rule {
                Rule::Default => "DEFAULT",
                Rule::Rewrite(rewrite) => &rewrite.text,
            })
            .collect();
        f.write_str(&rules.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mapper(rules: &str) -> SslPrincipalMapper {
        SslPrincipalMapper::from_rules(rules).unwrap_or_else(|e| panic!("{rules}: {e}"))
    }

    fn rules_of(rules: &str) -> String {
        mapper(rules).to_string()
    }

    #[test]
    fn several_rules_first_match_wins_with_case() {
        let m = mapper(
            "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L, \
             RULE:^CN=(.*?),OU=(.*?),O=(.*?),L=(.*?),ST=(.*?),C=(.*?)$/$1@$2/L, \
             RULE:^cn=(.*?),ou=(.*?),dc=(.*?),dc=(.*?)$/$1@$2/U, \
             RULE:^.*[Cc][Nn]=([a-zA-Z0-9.]*).*$/$1/U, \
             DEFAULT",
        );
        let name = |dn| m.name(dn).unwrap();
        assert_eq!(name("CN=Duke,OU=ServiceUsers,O=Org,C=US"), "duke");
        assert_eq!(
            name("CN=Duke,OU=SME,O=mycp,L=Fulton,ST=MD,C=US"),
            "duke@sme"
        );
        assert_eq!(name("cn=duke,ou=sme,dc=mycp,dc=com"), "DUKE@SME");
        assert_eq!(name("cN=duke,OU=JavaSoft,O=Sun Microsystems"), "DUKE");
        // DEFAULT: the name unchanged
        assert_eq!(
            name("OU=JavaSoft,O=Sun Microsystems,C=US"),
            "OU=JavaSoft,O=Sun Microsystems,C=US"
        );
    }

    #[test]
    fn no_rule_applies() {
        let m = mapper("RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/");
        assert_eq!(m.name("CN=Duke,OU=Other"), None);
        assert_eq!(mapper("").name("CN=Duke"), None);
        // A pattern matching only part of the name does not apply.
        assert_eq!(mapper("RULE:CN=Duke/x/").name("CN=Duke,O=Org"), None);
        assert_eq!(
            mapper("RULE:CN=Duke/x/,DEFAULT")
                .name("CN=Duke,O=Org")
                .unwrap(),
            "CN=Duke,O=Org"
        );
    }

    #[test]
    fn splits_as_kafka() {
        assert_eq!(rules_of(""), "");
        assert_eq!(rules_of(",   , , ,      , , ,   "), "");
        assert_eq!(rules_of("DEFAULT"), "DEFAULT");
        assert_eq!(rules_of("  RULE:// ,  DEFAULT  "), "RULE://,DEFAULT");
        assert_eq!(rules_of(",,RULE://,,,DEFAULT,,"), "RULE://,DEFAULT");
        assert_eq!(
            rules_of("  RULE:  /     /U   ,DEFAULT  "),
            "RULE:  /     /U,DEFAULT"
        );
        assert_eq!(
            rules_of("  RULE:([A-Z]*)/$1/U   ,RULE:([a-z]+)/$1/,   DEFAULT  "),
            "RULE:([A-Z]*)/$1/U,RULE:([a-z]+)/$1/,DEFAULT"
        );
        // Escaped slashes, and commas inside a pattern or replacement.
        assert_eq!(
            rules_of(r"RULE:\/\\\(\)\n\t/\/\//"),
            r"RULE:\/\\\(\)\n\t/\/\//"
        );
        assert_eq!(
            rules_of(r"RULE:,RULE:,/,RULE:,\//U,RULE:,/RULE:,/,RULE:, DEFAULT, /DEFAULT/,DEFAULT"),
            r"RULE:,RULE:,/,RULE:,\//U,RULE:,/RULE:,/,RULE:, DEFAULT, /DEFAULT/,DEFAULT"
        );
    }

    #[test]
    fn escapes_and_commas_in_names() {
        let m = mapper(r"RULE:^CN=((\\, *|\w)+)(,.*|$)/$1/,DEFAULT");
        assert_eq!(
            m.name(r"CN=Tkac\, Adam,OU=ITZ,DC=geodis,DC=cz").unwrap(),
            r"Tkac\, Adam"
        );
        let m = mapper(r"RULE:^CN=([^,]*),O=(.*)$/$2\/$1 \$1/");
        assert_eq!(m.name("CN=a,O=b").unwrap(), "b/a $1");
    }

    #[test]
    fn replacements_as_java() {
        // Group numbers take the digits that still name a group; $0 is the whole match.
        assert_eq!(mapper("RULE:^(a)(b)$/$12/").name("ab").unwrap(), "a2");
        assert_eq!(mapper("RULE:^(a)$/<$0>/").name("a").unwrap(), "<a>");
        // A number whose first digit names no group is literal, as Kafka escapes it.
        assert_eq!(mapper("RULE:^(a)$/$1@$4/").name("a").unwrap(), "a@$4");
        assert_eq!(
            mapper("RULE:^(?<user>[^,]*),.*$/${user}/")
                .name("x,y")
                .unwrap(),
            "x"
        );
        // A group left out of the match adds nothing.
        assert_eq!(mapper("RULE:^(a)|(b)$/[$2]/").name("a").unwrap(), "[]");
        // Every match is replaced, the empty one after a whole-name match too (Java's
        // replaceAll).
        assert_eq!(mapper("RULE:.*/x/").name("ab").unwrap(), "xx");
        assert_eq!(mapper("RULE:a*|ba*/x/").name("baa").unwrap(), "xbxx");
        assert_eq!(mapper("RULE:^.*$/x/U").name("ab").unwrap(), "X");
    }

    #[test]
    fn invalid_rules_fail() {
        for rules in [
            "default",
            "DEFAUL",
            "DEFAULT/L",
            "DEFAULT/U",
            "RULE:CN=(.*?),OU=ServiceUsers.*/$1",
            "rule:^CN=(.*?),OU=ServiceUsers.*$/$1/",
            "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L/U",
            "RULE:^CN=(.*?),OU=ServiceUsers.*$/L",
            "RULE:^CN=(.*?),OU=ServiceUsers.*$/U",
            "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/LU",
            "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/ L",
            "DEFAULT,RULE:x",
            r"RULE:abc\",
        ] {
            let error = SslPrincipalMapper::from_rules(rules).expect_err(rules);
            assert!(error.contains("invalid rule"), "{rules}: {error}");
        }
    }

    #[test]
    fn what_the_regex_crate_or_java_refuses_fails_at_start() {
        for (rules, why) in [
            ("RULE:^CN=(?!admin)(.*)$/$1/", "look-around"),
            (r"RULE:^CN=(a)\1$/$1/", "backreference"),
            ("RULE:^CN=(.*$/$1/", "unclosed group"),
            ("RULE:^CN=.*$/$1/", "no group"),
            ("RULE:^CN=(.*)$/${nobody}/", "nobody"),
            ("RULE:^CN=(.*)$/$/", "names no group"),
            ("RULE:^CN=(?<user>.*)$/${user/", "without its }"),
            (r"RULE:^CN=(.*)$/$1\/", "RULE:pattern/replacement/"),
        ] {
            let error = SslPrincipalMapper::from_rules(rules).expect_err(rules);
            // The message names the rule.
            assert!(error.contains(&rules[..10]), "{rules}: {error}");
            assert!(error.contains(why), "{rules}: {why} not in {error}");
        }
    }
}
