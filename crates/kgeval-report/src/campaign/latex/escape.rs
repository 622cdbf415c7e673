//! Text made safe for LaTeX: [`latex_escape`] for names, [`latex_breakable`] for running text
//! that may hold paths and IRIs.

use std::fmt::Write as _;

/// Text made safe for LaTeX text mode under pdflatex with T1 fonts and UTF-8 input: the ten
/// special characters escaped, common symbols (Greek letters, dashes, ≤, ≥, ×, →, quotes)
/// spelled as LaTeX, Latin letters with accents kept (T1 has them), any other character
/// written as its code point (`[U+4E2D]`) rather than breaking the build.
///
/// ```
/// use kgeval_report::campaign::latex_escape;
/// assert_eq!(latex_escape("P_10 & 50% #1"), r"P\_10 \& 50\% \#1");
/// assert_eq!(latex_escape("τ ≥ 0.5"), r"$\tau$ $\geq$ 0.5");
/// assert_eq!(latex_escape("Crème"), "Crème");
/// assert_eq!(latex_escape("中"), "[U+4E2D]");
/// ```
#[must_use]
pub fn latex_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\textbackslash{}"),
            '{' => out.push_str("\\{"),
            '}' => out.push_str("\\}"),
            '$' => out.push_str("\\$"),
            '&' => out.push_str("\\&"),
            '#' => out.push_str("\\#"),
            '%' => out.push_str("\\%"),
            '_' => out.push_str("\\_"),
            '^' => out.push_str("\\textasciicircum{}"),
            '~' => out.push_str("\\textasciitilde{}"),
            '<' => out.push_str("\\textless{}"),
            '>' => out.push_str("\\textgreater{}"),
            '|' => out.push_str("\\textbar{}"),
            '\n' | '\r' | '\t' => out.push(' '),
            c if c.is_ascii() && !c.is_ascii_control() => out.push(c),
            c => match symbol(c) {
                Some(latex) => out.push_str(latex),
                // Latin-1 and Latin Extended-A letters: T1 + utf8 inputenc typeset them.
                None if matches!(c as u32, 0xC0..=0x17F) && c.is_alphabetic() => out.push(c),
                None => {
                    let _ = write!(out, "[U+{:04X}]", c as u32);
                }
            },
        }
    }
    out
}

/// Tokens (runs without white space) up to this many characters are left whole.
const SHORT_TOKEN: usize = 24;
/// The longest run of characters [`latex_breakable`] leaves without a place to break.
const LONGEST_UNBROKEN: usize = 16;

/// [`latex_escape`] for running text that may hold paths, IRIs or file names (error lines,
/// captions, headings): in a token longer than 24 characters a line may break after each
/// `/`, `#`, `_`, `:`, `=`, `?` and `&`, and inside any run of more than 16 characters without
/// such a place, so no token, however long the folder it names, runs into the margin. Shorter
/// tokens (names, numbers) are left whole.
///
/// ```
/// use kgeval_report::campaign::latex_breakable;
/// assert_eq!(latex_breakable("task_1 failed"), r"task\_1 failed");
/// assert_eq!(
///     latex_breakable("/home/someone/campaigns/x.tsv"),
///     r"/\allowbreak{}home/\allowbreak{}someone/\allowbreak{}campaigns/\allowbreak{}x.tsv"
/// );
/// let long = latex_breakable(&"a".repeat(40));
/// assert_eq!(long.matches(r"\allowbreak{}").count(), 2);
/// ```
#[must_use]
pub fn latex_breakable(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    let mut token = String::new();
    for c in text.chars() {
        if c.is_whitespace() {
            push_token(&mut out, &token);
            token.clear();
            out.push_str(&latex_escape(c.encode_utf8(&mut [0; 4])));
        } else {
            token.push(c);
        }
    }
    push_token(&mut out, &token);
    out
}

/// One token of [`latex_breakable`], escaped, with places to break when it is long.
fn push_token(out: &mut String, token: &str) {
    if token.chars().count() <= SHORT_TOKEN {
        out.push_str(&latex_escape(token));
        return;
    }
    let mut run = 0;
    let mut buffer = [0u8; 4];
    for c in token.chars() {
        if run == LONGEST_UNBROKEN {
            out.push_str("\\allowbreak{}");
            run = 0;
        }
        out.push_str(&latex_escape(c.encode_utf8(&mut buffer)));
        if matches!(c, '/' | '#' | '_' | ':' | '=' | '?' | '&') {
            out.push_str("\\allowbreak{}");
            run = 0;
        } else {
            run += 1;
        }
    }
}

fn symbol(c: char) -> Option<&'static str> {
    Some(match c {
        'α' => "$\\alpha$",
        'β' => "$\\beta$",
        'γ' => "$\\gamma$",
        'δ' => "$\\delta$",
        'ε' => "$\\epsilon$",
        'κ' => "$\\kappa$",
        'λ' => "$\\lambda$",
        'μ' => "$\\mu$",
        'π' => "$\\pi$",
        'ρ' => "$\\rho$",
        'σ' => "$\\sigma$",
        'τ' => "$\\tau$",
        'Δ' => "$\\Delta$",
        '–' => "--",
        '—' => "---",
        '≤' => "$\\leq$",
        '≥' => "$\\geq$",
        '≠' => "$\\neq$",
        '±' => "$\\pm$",
        '×' => "$\\times$",
        '→' => "$\\rightarrow$",
        '…' => "\\ldots{}",
        '‘' => "`",
        '’' => "'",
        '“' => "``",
        '”' => "''",
        '·' => "$\\cdot$",
        '∞' => "$\\infty$",
        '\u{a0}' => "~",
        _ => return None,
    })
}
