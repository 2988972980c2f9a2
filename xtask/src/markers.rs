//! Generated regions of a Markdown file.
//!
//! A region starts with a line `<!-- generated: NAME [ARG] · from: SOURCES · cargo xtask docs
//! -->` and ends with the line `<!-- end: NAME -->`. Everything between the two lines belongs to
//! the generator `NAME` (with its optional argument `ARG`); the rest of the file is prose,
//! free to change. The start line itself is rewritten too, so that the sources it names are
//! always the files the generator read. Markers inside fenced code blocks (```` ``` ```` or
//! `~~~`) are text, not regions, so a document can show one.

/// The prefix of a region's first line.
const START: &str = "<!-- generated:";
/// The prefix of a region's last line.
const END: &str = "<!-- end:";
/// The end of an HTML comment.
const CLOSE: &str = "-->";

/// One generated region of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Region {
    /// The generator's name.
    pub name: String,
    /// Its argument, if any (a word after the name).
    pub argument: Option<String>,
    /// The index of the start line among the file's lines.
    pub start: usize,
    /// The index of the end line.
    pub end: usize,
}

impl Region {
    /// `NAME` or `NAME ARG`, as the start line and the error messages write it.
    pub fn label(&self) -> String {
        match &self.argument {
            Some(argument) => format!("{} {argument}", self.name),
            None => self.name.clone(),
        }
    }
}

/// The regions of `text`, in order. Fails on a start line without a name, a region opened
/// inside another, an end line without its start, an end that names another region, and a
/// region left open.
pub fn parse(text: &str) -> Result<Vec<Region>, String> {
    let mut regions = Vec::new();
    let mut open: Option<(usize, String, Option<String>)> = None;
    let mut fence: Option<&str> = None;
    for (index, line) in text.lines().enumerate() {
        let line_number = index + 1;
        let trimmed = line.trim();
        // A fenced code block ends at a fence of the same kind.
        if let Some(kind) = fence {
            if trimmed.starts_with(kind) {
                fence = None;
            }
            continue;
        }
        if let Some(kind) = ["```", "~~~"]
            .into_iter()
            .find(|kind| trimmed.starts_with(kind))
        {
            fence = Some(kind);
            continue;
        }
        if let Some(rest) = trimmed.strip_prefix(START) {
            if let Some((start, name, _)) = &open {
                return Err(format!(
                    "line {line_number}: a region starts inside region {name} (opened on line {})",
                    start + 1
                ));
            }
            let rest = rest.strip_suffix(CLOSE).ok_or_else(|| {
                format!("line {line_number}: the start marker does not end with -->")
            })?;
            let head = rest.split(" · ").next().unwrap_or_default();
            let mut words = head.split_whitespace();
            let name = words
                .next()
                .ok_or_else(|| format!("line {line_number}: a start marker without a name"))?
                .to_string();
            let argument = words.next().map(str::to_string);
            if let Some(extra) = words.next() {
                return Err(format!(
                    "line {line_number}: region {name} has more than one argument ({extra})"
                ));
            }
            open = Some((index, name, argument));
        } else if let Some(rest) = trimmed.strip_prefix(END) {
            let name = rest.strip_suffix(CLOSE).map(str::trim).ok_or_else(|| {
                format!("line {line_number}: the end marker does not end with -->")
            })?;
            let (start, open_name, argument) = open
                .take()
                .ok_or_else(|| format!("line {line_number}: end of {name} without its start"))?;
            if name != open_name {
                return Err(format!(
                    "line {line_number}: end of {name} closes region {open_name} (opened on line {})",
                    start + 1
                ));
            }
            regions.push(Region {
                name: open_name,
                argument,
                start,
                end: index,
            });
        }
    }
    if let Some((start, name, _)) = open {
        return Err(format!(
            "region {name}, opened on line {}, has no end marker `<!-- end: {name} -->`",
            start + 1
        ));
    }
    Ok(regions)
}

/// What a generator made of a region: the files it read and the Markdown it wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Generated {
    /// The files read, relative to the repository's root.
    pub sources: Vec<String>,
    /// The region's content (without the marker lines).
    pub body: String,
}

/// The start line of a region, naming its sources.
pub fn start_line(region: &Region, sources: &[String]) -> String {
    format!(
        "<!-- generated: {} · from: {} · cargo xtask docs -->",
        region.label(),
        sources.join(", ")
    )
}

/// The end line of a region.
pub fn end_line(region: &Region) -> String {
    format!("<!-- end: {} -->", region.name)
}

/// `text` with every region rewritten by `generate`, and the labels of the regions whose
/// lines changed.
pub fn rewrite(
    text: &str,
    mut generate: impl FnMut(&Region) -> Result<Generated, String>,
) -> Result<(String, Vec<String>), String> {
    let regions = parse(text)?;
    let lines: Vec<&str> = text.lines().collect();
    let mut out = String::with_capacity(text.len());
    let mut changed = Vec::new();
    let mut next = 0;
    for region in &regions {
        for line in &lines[next..region.start] {
            out.push_str(line);
            out.push('\n');
        }
        let generated = generate(region).map_err(|error| format!("{}: {error}", region.label()))?;
        let mut replacement = String::new();
        replacement.push_str(&start_line(region, &generated.sources));
        replacement.push_str("\n\n");
        let body = generated.body.trim_matches('\n');
        if !body.is_empty() {
            replacement.push_str(body);
            replacement.push_str("\n\n");
        }
        replacement.push_str(&end_line(region));
        replacement.push('\n');
        let mut current = String::new();
        for line in &lines[region.start..=region.end] {
            current.push_str(line);
            current.push('\n');
        }
        if current != replacement {
            changed.push(region.label());
        }
        out.push_str(&replacement);
        next = region.end + 1;
    }
    for line in &lines[next..] {
        out.push_str(line);
        out.push('\n');
    }
    if !text.ends_with('\n') {
        out.pop();
    }
    Ok((out, changed))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed(body: &str) -> impl FnMut(&Region) -> Result<Generated, String> + '_ {
        move |region| {
            Ok(Generated {
                sources: vec![format!("output/{}.csv", region.name)],
                body: body.to_string(),
            })
        }
    }

    #[test]
    fn regions_are_found_with_their_names_arguments_and_lines() {
        let text = "# Title\n\
                    <!-- generated: table · from: a.csv · cargo xtask docs -->\n\
                    old\n\
                    <!-- end: table -->\n\
                    prose\n\
                    <!-- generated: load-table capacity-drop -->\n\
                    <!-- end: load-table -->\n";
        let regions = parse(text).unwrap();
        assert_eq!(
            regions,
            vec![
                Region {
                    name: "table".into(),
                    argument: None,
                    start: 1,
                    end: 3
                },
                Region {
                    name: "load-table".into(),
                    argument: Some("capacity-drop".into()),
                    start: 5,
                    end: 6
                },
            ]
        );
        assert_eq!(regions[1].label(), "load-table capacity-drop");
    }

    #[test]
    fn markers_in_code_blocks_are_text() {
        let text = "```markdown\n<!-- generated: example -->\n<!-- end: example -->\n```\n\
                    ~~~\n<!-- generated: other -->\n~~~\n\
                    <!-- generated: real -->\n<!-- end: real -->\n";
        let regions = parse(text).unwrap();
        assert_eq!(regions.len(), 1);
        assert_eq!((regions[0].name.as_str(), regions[0].start), ("real", 7));
        let (out, _) = rewrite(text, fixed("x")).unwrap();
        assert!(
            out.starts_with(
                "```markdown\n<!-- generated: example -->\n<!-- end: example -->\n```\n"
            )
        );
    }

    #[test]
    fn broken_markers_are_errors_naming_the_line() {
        for (text, needle) in [
            ("<!-- generated: a -->\n<!-- generated: b -->\n", "line 2"),
            ("<!-- end: a -->\n", "without its start"),
            (
                "<!-- generated: a -->\n<!-- end: b -->\n",
                "closes region a",
            ),
            ("<!-- generated: a -->\ntext\n", "has no end marker"),
            ("<!-- generated: -->\n<!-- end: a -->\n", "without a name"),
            (
                "<!-- generated: a b c -->\n<!-- end: a -->\n",
                "more than one argument",
            ),
            (
                "<!-- generated: a\n<!-- end: a -->\n",
                "does not end with -->",
            ),
        ] {
            let error = parse(text).unwrap_err();
            assert!(error.contains(needle), "{text:?}: {error}");
        }
    }

    #[test]
    fn a_rewrite_replaces_the_region_and_keeps_the_prose() {
        let text = "before\n<!-- generated: t -->\nstale\n<!-- end: t -->\nafter\n";
        let (out, changed) = rewrite(text, fixed("| a |\n|---|\n| 1 |\n")).unwrap();
        assert_eq!(
            out,
            "before\n<!-- generated: t · from: output/t.csv · cargo xtask docs -->\n\n\
             | a |\n|---|\n| 1 |\n\n<!-- end: t -->\nafter\n"
        );
        assert_eq!(changed, ["t"]);
        // Fresh now: a second rewrite changes nothing.
        let (again, changed) = rewrite(&out, fixed("| a |\n|---|\n| 1 |\n")).unwrap();
        assert_eq!(again, out);
        assert!(changed.is_empty());
    }

    #[test]
    fn a_stale_region_is_named_and_a_fresh_one_is_not() {
        let fresh = rewrite(
            "<!-- generated: one -->\n<!-- end: one -->\ntext\n<!-- generated: two -->\n<!-- end: two -->\n",
            fixed("value 1"),
        )
        .unwrap()
        .0;
        // The data changed for region `two` only.
        let (_, changed) = rewrite(&fresh, |region| {
            let body = if region.name == "two" {
                "value 2"
            } else {
                "value 1"
            };
            fixed(body)(region)
        })
        .unwrap();
        assert_eq!(changed, ["two"]);
        // A hand edit inside a region is stale too; one outside is prose.
        let edited = fresh.replacen("value 1", "value 1.0", 1);
        assert_eq!(rewrite(&edited, fixed("value 1")).unwrap().1, ["one"]);
        let prose = fresh.replace("text", "other text");
        assert!(rewrite(&prose, fixed("value 1")).unwrap().1.is_empty());
    }

    #[test]
    fn a_changed_source_list_is_stale() {
        let fresh = rewrite("<!-- generated: t -->\n<!-- end: t -->\n", fixed("x"))
            .unwrap()
            .0;
        let (_, changed) = rewrite(&fresh, |_| {
            Ok(Generated {
                sources: vec!["output/t.csv".into(), "output/u.csv".into()],
                body: "x".into(),
            })
        })
        .unwrap();
        assert_eq!(changed, ["t"]);
    }

    #[test]
    fn a_generator_error_names_its_region() {
        let error = rewrite("<!-- generated: t arg -->\n<!-- end: t -->\n", |_| {
            Err("no such file".to_string())
        })
        .unwrap_err();
        assert_eq!(error, "t arg: no such file");
    }
}
