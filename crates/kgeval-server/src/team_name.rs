//! Team names: what a name may hold, and when two names are the same team.
//!
//! A name is shown on every leaderboard and in every export, so it holds no character that
//! shows nothing or changes how the text around it is shown: no control character, no
//! zero-width or otherwise invisible character, no bidirectional mark, embedding, override or
//! isolate. Two names are one team when their keys are equal: NFKC (compatibility forms
//! folded: fullwidth letters, ligatures, non-breaking and other spaces), lower-cased
//! (`str::to_lowercase`, Unicode's full lower-case mapping; not full case folding, so `ß` and
//! `ss` stay apart), NFKC again, variation selectors dropped and whitespace runs made one
//! space.

use unicode_normalization::UnicodeNormalization as _;

use crate::Error;

/// The longest team name, in characters.
pub const MAX_TEAM_NAME: usize = 100;

/// Whether `c` shows nothing or changes the direction of the text around it: a control
/// character, a zero-width or invisible one, a bidirectional mark, embedding, override or
/// isolate, a line or paragraph separator, a tag.
#[must_use]
pub fn is_hidden(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{AD}'                          // soft hyphen
            | '\u{34F}'                       // combining grapheme joiner
            | '\u{61C}'                       // Arabic letter mark
            | '\u{115F}' | '\u{1160}' | '\u{3164}' | '\u{FFA0}' // Hangul fillers
            | '\u{17B4}' | '\u{17B5}'         // Khmer inherent vowels
            | '\u{180E}'                      // Mongolian vowel separator
            | '\u{200B}'..='\u{200F}'         // zero-width space, non-joiner, joiner; LRM, RLM
            | '\u{2028}' | '\u{2029}'         // line and paragraph separators
            | '\u{202A}'..='\u{202E}'         // bidirectional embeddings and overrides
            | '\u{2060}'..='\u{2064}'         // word joiner, invisible operators
            | '\u{2066}'..='\u{206F}'         // bidirectional isolates, deprecated formats
            | '\u{FEFF}'                      // zero-width no-break space (BOM)
            | '\u{FFF9}'..='\u{FFFB}'         // interlinear annotation
            | '\u{1D173}'..='\u{1D17A}'       // musical formatting
            | '\u{E0000}'..='\u{E007F}' // tags
        )
}

/// Whether `c` is a variation selector (it picks a glyph, and is left out of the key).
fn is_variation_selector(c: char) -> bool {
    matches!(c, '\u{180B}'..='\u{180D}' | '\u{FE00}'..='\u{FE0F}' | '\u{E0100}'..='\u{E01EF}')
}

/// `name` trimmed, if it is a valid team name: 1 to [`MAX_TEAM_NAME`] characters, none of
/// them [hidden](is_hidden).
///
/// # Errors
/// [`Error::Usage`] saying what was found.
pub fn check(name: &str) -> Result<&str, Error> {
    let name = name.trim();
    if name.is_empty() || name.chars().count() > MAX_TEAM_NAME {
        return Err(Error::Usage(format!(
            "found a team name of {} characters, expected 1 to {MAX_TEAM_NAME}",
            name.chars().count()
        )));
    }
    if let Some(hidden) = name.chars().find(|&c| is_hidden(c)) {
        return Err(Error::Usage(format!(
            "found U+{:04X} in the team name \"{}\", expected no control, invisible or text-direction character",
            u32::from(hidden),
            name.escape_debug()
        )));
    }
    Ok(name)
}

/// The key under which two names are the same team (see the module's documentation).
#[must_use]
pub fn key(name: &str) -> String {
    let lower: String = name.nfkc().collect::<String>().to_lowercase();
    let folded: String = lower.nfkc().filter(|&c| !is_variation_selector(c)).collect();
    folded.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::{check, key};

    #[test]
    fn names_that_look_alike_share_a_key() {
        assert_eq!(key("Team A"), "team a");
        assert_eq!(key("team a"), "team a");
        // Fullwidth letters and an ideographic space (NFKC), a non-breaking space and a double
        // space (one space).
        assert_eq!(key("\u{FF34}\u{FF45}\u{FF41}\u{FF4D}\u{3000}\u{FF21}"), "team a");
        assert_eq!(key("Team\u{A0}A"), "team a");
        assert_eq!(key("Team  A"), "team a");
        // The ligature ﬁ is f + i; Å as one code point or A + ring is one name.
        assert_eq!(key("\u{FB01}nal"), "final");
        assert_eq!(key("\u{C5}ngstr\u{F6}m"), key("A\u{30A}ngstro\u{308}m"));
        // An emoji with or without its variation selector.
        assert_eq!(key("Team \u{2764}\u{FE0F}"), key("Team \u{2764}"));
        // Full case folding is not applied: ß stays apart from ss.
        assert_ne!(key("Stra\u{DF}e"), key("Strasse"));
    }

    #[test]
    fn hidden_characters_are_refused() {
        assert_eq!(check("  Team A ").expect("valid"), "Team A");
        assert!(check("=HYPERLINK(\"http://x\",\"y\")").is_ok(), "a formula is a name; the CSV defuses it");
        for hidden in [
            '\u{200B}', '\u{200C}', '\u{200D}', '\u{2060}', '\u{FEFF}', '\u{202E}', '\u{2066}', '\u{200F}', '\u{61C}',
            '\u{7}',
        ] {
            let name = format!("Team{hidden}A");
            let message = check(&name).expect_err("refused").to_string();
            assert!(message.starts_with(&format!("found U+{:04X} in the team name", u32::from(hidden))), "{message}");
        }
        assert!(check("   ").is_err());
        assert!(check(&"x".repeat(101)).is_err());
        assert!(check(&"é".repeat(100)).is_ok(), "100 characters, 200 bytes");
    }
}
