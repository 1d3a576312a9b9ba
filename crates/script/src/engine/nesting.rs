//! [`check_nesting`]: the scan that refuses code nested deeper than the engine's stack allows,
//! before Boa's parser (which recurses once per level) sees it.

/// How deep brackets (`(`, `[`, `{`, `${`) may nest; see [`check_nesting`].
pub const NESTING_LIMIT: usize = 500;

/// What one bracket level weighs against chains of operators in [`check_nesting`]: Boa's parser
/// spends about this many times the stack on a bracket as on a `!` or a `?:`.
pub const BRACKET_WEIGHT: usize = 8;

/// Refuses code nested deeper than Boa's parser and compiler can take on
/// [`STACK_BYTES`](super::STACK_BYTES) of stack (past it the thread would overflow its stack,
/// which ends the process).
///
/// A cheap scan, not a parse: it skips comments, strings, template text and regular
/// expressions, and counts the nesting along the way: a bracket (`(`, `[`, `{`, `${`) weighs
/// [`BRACKET_WEIGHT`], and an operator character or an operator keyword (`!`, `=`, `?`, `.`,
/// `typeof`, `if`, `else`, `new`…) weighs 1 until the next `,`, `;` or line break in the same
/// bracket, since Boa also recurses once per link of such a chain (`!!!!x`, `a=b=c`,
/// `x?1:x?2:…`, `if(a)if(b)…`). The weight open at any point may not pass
/// `NESTING_LIMIT * BRACKET_WEIGHT`: brackets [`NESTING_LIMIT`] deep, or a chain of 4000.
pub fn check_nesting(code: &str) -> Result<(), String> {
    Nesting::default().scan(code.as_bytes())
}

#[derive(Default)]
struct Nesting {
    /// The open brackets: is each a template's `${`, and the chain open around it.
    open: Vec<(bool, usize)>,
    /// The weight of the open brackets and their chains.
    base: usize,
    /// The chain in the innermost bracket.
    chain: usize,
    /// Would a `/` here start a regular expression (not divide)?
    regex_allowed: bool,
}

impl Nesting {
    const LIMIT: usize = NESTING_LIMIT * BRACKET_WEIGHT;

    fn scan(mut self, code: &[u8]) -> Result<(), String> {
        self.regex_allowed = true;
        let mut i = 0;
        while let Some(&byte) = code.get(i) {
            i += 1;
            match byte {
                b'\n' => self.chain = 0,
                b' ' | b'\t' | b'\r' => {}
                b'/' if code.get(i) == Some(&b'/') => i = skip_line(code, i),
                b'/' if code.get(i) == Some(&b'*') => {
                    let end = find(code, i + 1, b"*/").map_or(code.len(), |at| at + 2);
                    if code[i..end].contains(&b'\n') {
                        self.chain = 0;
                    }
                    i = end;
                }
                b'/' if self.regex_allowed => {
                    i = skip_regex(code, i);
                    self.regex_allowed = false;
                }
                b'\'' | b'"' => {
                    i = skip_string(code, i, byte);
                    self.regex_allowed = false;
                }
                b'`' => i = self.template(code, i)?,
                b'(' | b'[' | b'{' => self.open(false)?,
                b')' | b']' => {
                    self.close();
                    self.regex_allowed = false;
                }
                b'}' => {
                    if self.close() {
                        // The end of a `${…}`: the template goes on.
                        i = self.template(code, i)?;
                    } else {
                        self.regex_allowed = false;
                    }
                }
                b',' | b';' => {
                    self.chain = 0;
                    self.regex_allowed = true;
                }
                b'0'..=b'9' | b'a'..=b'z' | b'A'..=b'Z' | b'_' | b'$' | 0x80.. => {
                    let start = i - 1;
                    while code.get(i).is_some_and(|&b| {
                        b.is_ascii_alphanumeric()
                            || b"_$".contains(&b)
                            || b >= 0x80
                            || (b == b'.' && code[start].is_ascii_digit())
                    }) {
                        i += 1;
                    }
                    let word = &code[start..i];
                    if OPERATOR_WORDS.contains(&word) {
                        self.link()?;
                        self.regex_allowed = true;
                    } else {
                        self.regex_allowed = false;
                    }
                }
                _ => {
                    self.link()?;
                    self.regex_allowed = true;
                }
            }
        }
        Ok(())
    }

    fn weight(&self) -> usize {
        self.base.saturating_add(self.chain)
    }

    fn refuse(&self) -> Result<(), String> {
        Err(format!(
            "the code nests too deep for the engine (brackets more than {NESTING_LIMIT} deep, \
             or too long a chain of operators without a line break)"
        ))
    }

    fn link(&mut self) -> Result<(), String> {
        self.chain = self.chain.saturating_add(1);
        if self.weight() > Self::LIMIT {
            return self.refuse();
        }
        Ok(())
    }

    fn open(&mut self, template: bool) -> Result<(), String> {
        self.open.push((template, self.chain));
        self.base = self
            .base
            .saturating_add(self.chain)
            .saturating_add(BRACKET_WEIGHT);
        self.chain = 0;
        self.regex_allowed = true;
        if self.weight() > Self::LIMIT {
            return self.refuse();
        }
        Ok(())
    }

    /// Closes the innermost bracket; whether it was a template's `${`.
    fn close(&mut self) -> bool {
        match self.open.pop() {
            Some((template, chain)) => {
                self.base = self
                    .base
                    .saturating_sub(chain.saturating_add(BRACKET_WEIGHT));
                self.chain = chain;
                template
            }
            None => false,
        }
    }

    /// Skips template text from `i` (just after a backtick or a `${…}`'s `}`): to after the
    /// closing backtick, or into the next `${`, which it opens.
    fn template(&mut self, code: &[u8], mut i: usize) -> Result<usize, String> {
        while let Some(&byte) = code.get(i) {
            i += 1;
            match byte {
                b'\\' => i += 1,
                b'`' => {
                    self.regex_allowed = false;
                    return Ok(i);
                }
                b'$' if code.get(i) == Some(&b'{') => {
                    self.open(true)?;
                    return Ok(i + 1);
                }
                _ => {}
            }
        }
        Ok(i)
    }
}

/// Keywords that link what follows them into a chain (and after which `/` starts a regular
/// expression).
const OPERATOR_WORDS: [&[u8]; 17] = [
    b"if",
    b"else",
    b"while",
    b"for",
    b"do",
    b"with",
    b"typeof",
    b"void",
    b"delete",
    b"new",
    b"await",
    b"yield",
    b"in",
    b"instanceof",
    b"return",
    b"throw",
    b"case",
];

fn find(code: &[u8], from: usize, what: &[u8]) -> Option<usize> {
    code.get(from..)?
        .windows(what.len())
        .position(|w| w == what)
        .map(|at| from + at)
}

/// From inside a `//` comment: to its line break (not past it).
fn skip_line(code: &[u8], i: usize) -> usize {
    code[i..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(code.len(), |at| i + at)
}

/// From after the opening quote: to after the closing one, or to the line's end.
fn skip_string(code: &[u8], mut i: usize, quote: u8) -> usize {
    while let Some(&byte) = code.get(i) {
        match byte {
            b'\\' => i += 2,
            b'\n' => return i,
            _ if byte == quote => return i + 1,
            _ => i += 1,
        }
    }
    code.len()
}

/// From after the opening `/`: to after the closing one (a `/` in a class `[…]` does not
/// close), or to the line's end.
fn skip_regex(code: &[u8], mut i: usize) -> usize {
    let mut class = false;
    while let Some(&byte) = code.get(i) {
        match byte {
            b'\\' => i += 2,
            b'\n' => return i,
            b'[' => {
                class = true;
                i += 1;
            }
            b']' => {
                class = false;
                i += 1;
            }
            b'/' if !class => return i + 1,
            _ => i += 1,
        }
    }
    code.len()
}
