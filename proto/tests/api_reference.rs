//! The book's API reference (`docs/book/src/reference/api.md`) is generated from the comments
//! of `proto/gin/v1/*.proto`, read from the compiled descriptor set with its source info
//! ([`gin_proto::FILE_DESCRIPTOR_SET`], built by protox in build.rs), never from the .proto
//! text. This test generates it and fails if the committed page differs; with
//! `GIN_WRITE_GENERATED=1` it rewrites the page instead:
//!
//! ```sh
//! GIN_WRITE_GENERATED=1 cargo test -p gin-proto --test api_reference
//! ```

use std::collections::BTreeMap;
use std::fmt::Write as _;

use prost::Message as _;
use prost_types::field_descriptor_proto::{Label, Type};
use prost_types::{
    DescriptorProto, EnumDescriptorProto, FieldDescriptorProto, FileDescriptorProto, FileDescriptorSet,
    ServiceDescriptorProto, SourceCodeInfo,
};

const PAGE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/book/src/reference/api.md");
const REWRITE: &str = "GIN_WRITE_GENERATED=1 cargo test -p gin-proto --test api_reference";
const PACKAGE: &str = "gin.v1";

// Field numbers of descriptor.proto, for the paths of `SourceCodeInfo` locations.
const FILE_MESSAGE: i32 = 4;
const FILE_ENUM: i32 = 5;
const FILE_SERVICE: i32 = 6;
const MESSAGE_FIELD: i32 = 2;
const MESSAGE_NESTED: i32 = 3;
const MESSAGE_ENUM: i32 = 4;
const ENUM_VALUE: i32 = 2;
const SERVICE_METHOD: i32 = 2;

/// The leading (else trailing) comment of each element of a file, by its path.
struct Comments(BTreeMap<Vec<i32>, String>);

impl Comments {
    fn new(info: Option<&SourceCodeInfo>) -> Comments {
        let mut map = BTreeMap::new();
        for loc in info.map(|i| i.location.as_slice()).unwrap_or_default() {
            let raw = loc.leading_comments.as_deref().or(loc.trailing_comments.as_deref()).unwrap_or("");
            // `// text` gives " text\n" per line: one leading space goes.
            let text: Vec<&str> = raw.lines().map(|l| l.strip_prefix(' ').unwrap_or(l).trim_end()).collect();
            let text = text.join("\n").trim().to_string();
            if !text.is_empty() {
                map.insert(loc.path.clone(), text);
            }
        }
        Comments(map)
    }

    fn get(&self, path: &[i32]) -> &str {
        self.0.get(path).map(String::as_str).unwrap_or("")
    }
}

/// `<` outside code spans as `&lt;`, so that `<token>` in a comment is text, not an HTML tag.
fn escape_html(text: &str) -> String {
    let mut out = String::new();
    for (i, part) in text.split('`').enumerate() {
        if i > 0 {
            out.push('`');
        }
        if i % 2 == 0 { out.push_str(&part.replace('<', "&lt;")) } else { out.push_str(part) }
    }
    out
}

/// A comment as one table cell.
fn cell(text: &str) -> String {
    escape_html(text).replace('|', "\\|").split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A comment as paragraphs (its line breaks kept).
fn paragraph(out: &mut String, text: &str) {
    if !text.is_empty() {
        writeln!(out, "{}\n", escape_html(text)).unwrap();
    }
}

/// The anchor mdBook and GitHub give a heading of plain text: lowercase, punctuation dropped.
fn slug(heading: &str) -> String {
    heading
        .chars()
        .filter_map(|c| match c {
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c.to_ascii_lowercase()),
            c if c.is_whitespace() => Some('-'),
            _ => None,
        })
        .collect()
}

/// Every message and enum of the package, by fully qualified name (`.gin.v1.Card`), with the
/// name it is shown by (`Card`, `Rules.Preset`).
#[derive(Default)]
struct Types {
    shown: BTreeMap<String, String>,
    map_entries: BTreeMap<String, DescriptorProto>,
}

impl Types {
    fn add_message(&mut self, scope: &str, shown_scope: &str, m: &DescriptorProto) {
        let name = m.name();
        let fq = format!("{scope}.{name}");
        if m.options.as_ref().is_some_and(|o| o.map_entry()) {
            self.map_entries.insert(fq, m.clone());
            return;
        }
        let shown = if shown_scope.is_empty() { name.to_string() } else { format!("{shown_scope}.{name}") };
        for n in &m.nested_type {
            self.add_message(&fq, &shown, n);
        }
        for e in &m.enum_type {
            self.shown.insert(format!("{fq}.{}", e.name()), format!("{shown}.{}", e.name()));
        }
        self.shown.insert(fq, shown);
    }

    /// A message or enum type as a link to its section (or as its name, outside the package).
    fn link(&self, type_name: &str) -> String {
        match self.shown.get(type_name) {
            Some(shown) => format!("[`{shown}`](#{})", slug(shown)),
            None => format!("`{}`", type_name.trim_start_matches('.')),
        }
    }

    fn field_type(&self, f: &FieldDescriptorProto) -> String {
        if let Some(entry) = self.map_entries.get(f.type_name()) {
            return format!(
                "map of {} to {}",
                self.field_type(&entry.field[0]),
                self.field_type(&entry.field[1])
            );
        }
        let base = match f.r#type() {
            Type::Message | Type::Enum | Type::Group => self.link(f.type_name()),
            t => format!("`{}`", t.as_str_name().trim_start_matches("TYPE_").to_lowercase()),
        };
        match f.label() {
            Label::Repeated => format!("repeated {base}"),
            _ if f.proto3_optional() => format!("optional {base}"),
            _ => base,
        }
    }
}

fn service(out: &mut String, types: &Types, file: &FileDescriptorProto, c: &Comments, i: usize) {
    let s: &ServiceDescriptorProto = &file.service[i];
    let path = vec![FILE_SERVICE, i as i32];
    writeln!(out, "### {}\n", s.name()).unwrap();
    writeln!(out, "`{PACKAGE}.{}`, in `{}`.\n", s.name(), file.name()).unwrap();
    paragraph(out, c.get(&path));
    for (j, m) in s.method.iter().enumerate() {
        writeln!(out, "#### {}.{}\n", s.name(), m.name()).unwrap();
        let stream = |yes: bool| if yes { "a stream of " } else { "" };
        writeln!(
            out,
            "Request: {}{}. Response: {}{}.\n",
            stream(m.client_streaming()),
            types.link(m.input_type()),
            stream(m.server_streaming()),
            types.link(m.output_type()),
        )
        .unwrap();
        paragraph(out, c.get(&[path.as_slice(), &[SERVICE_METHOD, j as i32]].concat()));
    }
}

fn message(out: &mut String, types: &Types, fq: &str, m: &DescriptorProto, c: &Comments, path: &[i32]) {
    let fq = format!("{fq}.{}", m.name());
    if types.map_entries.contains_key(&fq) {
        return;
    }
    writeln!(out, "### {}\n", types.shown[&fq]).unwrap();
    paragraph(out, c.get(path));
    if m.field.is_empty() {
        writeln!(out, "No fields.\n").unwrap();
    } else {
        writeln!(out, "| Field | Number | Type | Description |\n| --- | --- | --- | --- |").unwrap();
        for (k, f) in m.field.iter().enumerate() {
            let mut about = String::new();
            // A real oneof (not the synthetic one of a proto3 `optional`).
            if let Some(o) = f.oneof_index.filter(|_| !f.proto3_optional()) {
                write!(about, "One of `{}`. ", m.oneof_decl[o as usize].name()).unwrap();
            }
            about.push_str(&cell(c.get(&[path, &[MESSAGE_FIELD, k as i32]].concat())));
            writeln!(
                out,
                "| `{}` | {} | {} | {} |",
                f.name(),
                f.number(),
                types.field_type(f),
                about.trim_end()
            )
            .unwrap();
        }
        out.push('\n');
    }
    for (j, e) in m.enum_type.iter().enumerate() {
        enumeration(out, types, &fq, e, c, &[path, &[MESSAGE_ENUM, j as i32]].concat());
    }
    for (j, n) in m.nested_type.iter().enumerate() {
        message(out, types, &fq, n, c, &[path, &[MESSAGE_NESTED, j as i32]].concat());
    }
}

fn enumeration(
    out: &mut String,
    types: &Types,
    fq: &str,
    e: &EnumDescriptorProto,
    c: &Comments,
    path: &[i32],
) {
    writeln!(out, "### {}\n", types.shown[&format!("{fq}.{}", e.name())]).unwrap();
    paragraph(out, c.get(path));
    writeln!(out, "| Value | Number | Description |\n| --- | --- | --- |").unwrap();
    for (k, v) in e.value.iter().enumerate() {
        let about = cell(c.get(&[path, &[ENUM_VALUE, k as i32]].concat()));
        writeln!(out, "| `{}` | {} | {} |", v.name(), v.number(), about).unwrap();
    }
    out.push('\n');
}

/// The page, from a descriptor set with source info.
fn generate(set: &FileDescriptorSet) -> String {
    let files: Vec<&FileDescriptorProto> = set.file.iter().filter(|f| f.package() == PACKAGE).collect();
    let mut types = Types::default();
    for f in &files {
        for m in &f.message_type {
            types.add_message(&format!(".{PACKAGE}"), "", m);
        }
        for e in &f.enum_type {
            types.shown.insert(format!(".{PACKAGE}.{}", e.name()), e.name().to_string());
        }
    }
    let mut out = String::new();
    writeln!(
        out,
        "# gRPC API\n\n\
         <!-- Generated from the comments of proto/gin/v1/*.proto by proto/tests/api_reference.rs:\n\
         \x20    do not edit. After changing a .proto: {REWRITE} -->\n\n\
         Every service, message and enum of the package `{PACKAGE}`, with the comments of its\n\
         `.proto` files ([`proto/gin/v1/`](../../../../proto/gin/v1/)), from which this page is\n\
         generated. The server also answers gRPC reflection, so tools such as `grpcurl` can list\n\
         the same (see [A walkthrough with grpcurl](grpcurl.md)).\n\n\
         A field of a message type is a link to that message. `optional` is a field whose\n\
         absence is told apart from its zero value; \"a stream of\" is a streaming call.\n"
    )
    .unwrap();
    writeln!(out, "## Services\n").unwrap();
    for f in &files {
        let c = Comments::new(f.source_code_info.as_ref());
        for i in 0..f.service.len() {
            service(&mut out, &types, f, &c, i);
        }
    }
    writeln!(out, "## Messages\n").unwrap();
    for f in &files {
        let c = Comments::new(f.source_code_info.as_ref());
        for (i, m) in f.message_type.iter().enumerate() {
            message(&mut out, &types, &format!(".{PACKAGE}"), m, &c, &[FILE_MESSAGE, i as i32]);
        }
    }
    writeln!(out, "## Enums\n").unwrap();
    for f in &files {
        let c = Comments::new(f.source_code_info.as_ref());
        for (i, e) in f.enum_type.iter().enumerate() {
            enumeration(&mut out, &types, &format!(".{PACKAGE}"), e, &c, &[FILE_ENUM, i as i32]);
        }
    }
    let out = out.trim_end().to_string() + "\n";
    // Each heading must have its own anchor, or a link would land on the wrong one.
    let mut seen = BTreeMap::new();
    for h in out.lines().filter_map(|l| l.strip_prefix("### ").or_else(|| l.strip_prefix("#### "))) {
        if let Some(other) = seen.insert(slug(h), h) {
            panic!("two headings with the anchor #{}: {other:?} and {h:?}", slug(h));
        }
    }
    out
}

fn descriptor_set() -> FileDescriptorSet {
    FileDescriptorSet::decode(gin_proto::FILE_DESCRIPTOR_SET).expect("the descriptor set decodes")
}

#[test]
fn api_reference_is_what_the_protos_generate() {
    let page = generate(&descriptor_set());
    if std::env::var_os("GIN_WRITE_GENERATED").is_some_and(|v| v == "1") {
        std::fs::write(PAGE, &page).expect("write the API reference");
        return;
    }
    let committed = std::fs::read_to_string(PAGE).unwrap_or_default();
    if committed != page {
        let line = committed.lines().zip(page.lines()).position(|(a, b)| a != b);
        let line = line.unwrap_or_else(|| committed.lines().count().min(page.lines().count()));
        panic!(
            "docs/book/src/reference/api.md is not what proto/gin/v1/*.proto generate (first \
             difference at line {}: committed {:?}, generated {:?}).\nRewrite it with: {REWRITE}",
            line + 1,
            committed.lines().nth(line).unwrap_or("<end>"),
            page.lines().nth(line).unwrap_or("<end>"),
        );
    }
}

#[test]
fn every_element_of_the_package_is_on_the_page() {
    let set = descriptor_set();
    let page = generate(&set);
    let mut n = 0;
    for f in set.file.iter().filter(|f| f.package() == PACKAGE) {
        assert!(f.source_code_info.is_some(), "{} has no source info: no comments", f.name());
        for s in &f.service {
            assert!(page.contains(&format!("\n### {}\n", s.name())), "service {}", s.name());
            for m in &s.method {
                assert!(page.contains(&format!("\n#### {}.{}\n", s.name(), m.name())), "rpc {}", m.name());
                n += 1;
            }
        }
        for m in &f.message_type {
            assert!(page.contains(&format!("\n### {}\n", m.name())), "message {}", m.name());
            n += 1;
        }
        for e in &f.enum_type {
            assert!(page.contains(&format!("\n### {}\n", e.name())), "enum {}", e.name());
            for v in &e.value {
                assert!(page.contains(&format!("| `{}` | {} |", v.name(), v.number())), "value {}", v.name());
            }
            n += 1;
        }
    }
    assert!(n > 50, "only {n} RPCs, messages and enums");
    // The comments are there: the first RPC of the lobby, word for word.
    assert!(page.contains("Creates a game. With `join`, the caller takes a seat and gets its token."));
    // A field of a message type links to it, and the link's anchor is a heading of the page.
    assert!(page.contains("| `rules` | 1 | [`Rules`](#rules) |"), "CreateGameRequest.rules links to Rules");
    assert!(page.contains("\n### Rules\n"));
}

#[test]
fn generation_is_deterministic() {
    assert_eq!(generate(&descriptor_set()), generate(&descriptor_set()));
}

/// The fixture's page: nested messages and enums, a map, a oneof, `optional`, streams both
/// ways, a trailing comment, `<` and `|` in comments.
#[test]
fn fixture_with_every_kind_of_element() {
    // Not a .proto under proto/ (buf would lint it as part of the API): written out here.
    let dir = std::env::temp_dir().join(format!("gin-api-reference-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("gin/v1")).unwrap();
    std::fs::write(dir.join("gin/v1/fixture.proto"), include_str!("fixtures/api_reference.proto.in"))
        .unwrap();
    let set = protox::compile(["gin/v1/fixture.proto"], [&dir]);
    std::fs::remove_dir_all(&dir).unwrap();
    let set = set.expect("the fixture compiles");
    let page = generate(&set);
    for want in [
        "### FixtureService\n\n`gin.v1.FixtureService`, in `gin/v1/fixture.proto`.\n\nA service of the fixture.\n",
        "#### FixtureService.Chat\n\nRequest: a stream of [`Outer`](#outer). \
         Response: a stream of [`Outer.Inner`](#outerinner).\n\nBoth ways streaming.\n",
        "Unary, with a &lt;b>tag&lt;/b> in `code <kept>`.",
        "### Outer\n\nThe outer message.\n",
        "| `by_name` | 1 | map of `string` to [`Outer.Inner`](#outerinner) | By name. |",
        "| `moods` | 2 | repeated [`Outer.Mood`](#outermood) |  |",
        "| `count` | 3 | optional `uint64` |  |",
        "| `text` | 4 | `string` | One of `choice`. A string. |",
        "| `inner` | 5 | [`Outer.Inner`](#outerinner) | One of `choice`. An inner one. |",
        "### Outer.Mood\n\nAn enum of Outer.\n",
        "| `MOOD_CALM` | 1 | Calm \\| quiet. |",
        "### Outer.Inner\n\nAn inner message.\n",
        "| `level` | 1 | [`Level`](#level) | Its level. |",
        "| `LEVEL_UNSPECIFIED` | 0 | Trailing comment. |",
    ] {
        assert!(page.contains(want), "missing {want:?} in:\n{page}");
    }
    // The map's entry type is no message of its own.
    assert!(!page.contains("ByNameEntry"), "{page}");
}
