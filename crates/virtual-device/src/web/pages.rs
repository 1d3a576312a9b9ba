//! The demo's help centre: small semantic pages the WebView's Chromium opens as `file://`
//! URLs from the device's temporary folder (nothing comes from the network).
//!
//! - `login.html` — title "Help centre sign-in", heading "Sign in", `#email` (type email,
//!   label "Email"), `#password` (label "Password"), `#submit` "Sign in", a "Forgot
//!   password?" link (`#forgot`), `#report` "Report a problem" (its click throws an uncaught
//!   `TypeError`), `#error` (role alert: "Enter your email and password" when a field is empty
//!   on submit), a decorative `aria-hidden` logo and a footer below the fold (`#legal`). A
//!   submit logs `sign-in submitted for EMAIL` to the console; with both fields filled it goes
//!   to `welcome.html?email=EMAIL`. The page counts `touchstart`s in `window.touches`.
//! - `welcome.html` — title "Help centre", heading "Welcome, EMAIL", a paragraph, a "Sign
//!   out" link (`#signout`) back to the sign-in page.
//! - `big.html` — written by `web big N`: N elements (a list of N/2 items, each a link).
//!
//! Every page's background is `#e8f0fe`, which screenshots of the WebView show.

use std::path::{Path, PathBuf};

const STYLE: &str = r#"<style>
  html, body { margin: 0; background: #e8f0fe; font: 16px/1.4 sans-serif; color: #202124; }
  main { padding: 24px 20px; }
  h1 { font-size: 24px; margin: 0 0 16px; }
  label { display: block; margin: 12px 0 4px; font-weight: 600; }
  input { box-sizing: border-box; width: 100%; height: 44px; padding: 0 10px; font-size: 16px;
          border: 1px solid #9aa0a6; border-radius: 6px; background: #fff; }
  button { display: block; width: 100%; height: 44px; margin-top: 16px; font-size: 16px;
           border: 0; border-radius: 6px; }
  #submit { background: #1a73e8; color: #fff; }
  #report { background: #fff; color: #1a73e8; border: 1px solid #1a73e8; }
  .error { color: #c5221f; margin: 12px 0 0; min-height: 1.4em; }
  .logo { width: 48px; height: 48px; border-radius: 50%; background: #1a73e8; margin-bottom: 12px; }
  footer { margin-top: 1400px; padding: 20px; color: #5f6368; }
  li { padding: 6px 0; }
</style>"#;

/// Counts the page's touches, so tests can see a finger reached it.
const TOUCH_COUNTER: &str = r#"<script>
  window.touches = 0;
  document.addEventListener('touchstart', () => { window.touches++; }, { passive: true });
</script>"#;

const LOGIN_BODY: &str = r##"<main>
  <div class="logo" aria-hidden="true"></div>
  <h1>Sign in</h1>
  <form id="signin" novalidate>
    <label for="email">Email</label>
    <input id="email" name="email" type="email" autocomplete="email">
    <label for="password">Password</label>
    <input id="password" name="password" type="password" autocomplete="current-password">
    <p id="error" class="error" role="alert"></p>
    <button id="submit" type="submit">Sign in</button>
  </form>
  <p><a id="forgot" href="#forgot">Forgot password?</a></p>
  <button id="report" type="button">Report a problem</button>
</main>
<footer id="legal">Terms of service and privacy notice</footer>
<script>
  document.getElementById('signin').addEventListener('submit', (e) => {
    e.preventDefault();
    const email = document.getElementById('email').value.trim();
    const password = document.getElementById('password').value;
    console.log('sign-in submitted for ' + (email || '(no email)'));
    if (!email || !password) {
      document.getElementById('error').textContent = 'Enter your email and password';
      return;
    }
    location.href = 'welcome.html?email=' + encodeURIComponent(email);
  });
  document.getElementById('report').addEventListener('click', () => {
    const form = null;
    form.requestSubmit();
  });
</script>"##;

const WELCOME_BODY: &str = r#"<main>
  <h1 id="welcome">Welcome</h1>
  <p>Browse the articles below or contact us if something is not working as it should.</p>
  <p><a id="signout" href="login.html">Sign out</a></p>
</main>
<script>
  const email = new URLSearchParams(location.search).get('email') || '';
  document.getElementById('welcome').textContent = 'Welcome, ' + email;
</script>"#;

fn page(title: &str, body: &str) -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{title}</title>\n{STYLE}\n</head>\n<body>\n{TOUCH_COUNTER}\n{body}\n</body>\n</html>\n"
    )
}

pub fn login() -> String {
    page("Help centre sign-in", LOGIN_BODY)
}

pub fn welcome() -> String {
    page("Help centre", WELCOME_BODY)
}

/// A page of about `n` elements: a heading and a list of `n / 2` items, each with a link.
pub fn big(n: usize) -> String {
    let items = n.saturating_sub(8) / 2;
    let mut body = String::with_capacity(items * 64);
    body.push_str("<main>\n<h1>All articles</h1>\n<ul id=\"articles\">\n");
    for i in 1..=items {
        body.push_str(&format!("<li><a href=\"#a{i}\">Article {i}</a></li>\n"));
    }
    body.push_str("</ul>\n</main>");
    page("Help centre articles", &body)
}

/// Writes the sign-in and welcome pages into `dir`; returns the sign-in page's URL.
pub fn write(dir: &Path) -> std::io::Result<String> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join("login.html"), login())?;
    std::fs::write(dir.join("welcome.html"), welcome())?;
    Ok(url(&dir.join("login.html")))
}

/// Writes `big.html` with about `n` elements into `dir`; returns its URL.
pub fn write_big(dir: &Path, n: usize) -> std::io::Result<String> {
    let path: PathBuf = dir.join("big.html");
    std::fs::write(&path, big(n))?;
    Ok(url(&path))
}

/// The `file://` URL of a path (the temporary folder's names need no escaping).
pub fn url(path: &Path) -> String {
    format!("file://{}", path.display())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pages_have_what_the_product_reads() {
        let l = login();
        for needle in [
            "<title>Help centre sign-in</title>",
            "<h1>Sign in</h1>",
            "<input id=\"email\" name=\"email\" type=\"email\"",
            "<label for=\"email\">Email</label>",
            "<input id=\"password\" name=\"password\" type=\"password\"",
            "<button id=\"submit\" type=\"submit\">Sign in</button>",
            "Forgot password?",
            "<button id=\"report\" type=\"button\">Report a problem</button>",
            "Enter your email and password",
            "aria-hidden=\"true\"",
            "#e8f0fe",
        ] {
            assert!(l.contains(needle), "{needle}");
        }
        assert!(welcome().contains("<title>Help centre</title>"));
        let b = big(20_000);
        assert_eq!(b.matches("<li>").count(), 9_996);
        assert_eq!(b.matches("<a ").count(), 9_996);
        let dir = tempfile::tempdir().unwrap();
        let u = write(dir.path()).unwrap();
        assert!(
            u.starts_with("file:///") && u.ends_with("/login.html"),
            "{u}"
        );
        assert!(dir.path().join("welcome.html").is_file());
    }
}
