//! How a task's messages and results name its gold — everything the task reads but its
//! systems: by file, as `kgeval FAMILY` prints them, or as `the gold`, as a served task does
//! (its teams never see an organiser's path). Each family's `read_gold` keeps the names its
//! later messages use, so scoring an upload against a served task's gold names no file.

use kgeval_formats::Input;

/// What a served task's messages call its gold.
pub const THE_GOLD: &str = "the gold";

/// How a task's gold inputs are named once read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum GoldNames {
    /// By their files (paths as given).
    #[default]
    Files,
    /// As [`THE_GOLD`], with the input's role when the task has several.
    Hidden,
}

impl GoldNames {
    /// The name of the gold input `input` whose role is `role` (empty: the task's one gold
    /// file): its file, or `the gold` / `the gold's ROLE`.
    pub(crate) fn name(self, input: &Input, role: &str) -> String {
        self.name_of(&input.name(), role)
    }

    /// [`GoldNames::name`] of an input named `file`.
    pub(crate) fn name_of(self, file: &str, role: &str) -> String {
        match self {
            GoldNames::Files => file.to_owned(),
            GoldNames::Hidden if role.is_empty() => THE_GOLD.to_owned(),
            GoldNames::Hidden => format!("{THE_GOLD}'s {role}"),
        }
    }

    /// How a message refers to the gold input `input`: `NOUN FILE` (`the gold lexicon
    /// lex.ttl`), or `the gold`.
    pub(crate) fn phrase(self, input: &Input, noun: &str) -> String {
        match self {
            GoldNames::Files => format!("{noun} {}", input.name()),
            GoldNames::Hidden => THE_GOLD.to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::GoldNames;
    use crate::Input;

    #[test]
    fn files_or_the_gold() {
        let input = Input::path("/srv/organiser/gold.xml");
        assert_eq!(GoldNames::Files.name(&input, "pools of pair a"), "/srv/organiser/gold.xml");
        assert_eq!(GoldNames::Hidden.name(&input, ""), "the gold");
        assert_eq!(GoldNames::Hidden.name(&input, "pools of pair a"), "the gold's pools of pair a");
        assert_eq!(GoldNames::Files.phrase(&input, "the gold"), "the gold /srv/organiser/gold.xml");
        assert_eq!(GoldNames::Hidden.phrase(&input, "the gold lexicon"), "the gold");
    }
}
