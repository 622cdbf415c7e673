//! The Alignment-API RDF/XML layouts real tools write, for `cargo xtask bench align`: every
//! layout holds the same cells (same seeded draws), so kgeval and the SAX scorer must print the
//! same scores on each, and only the bytes around the cells differ.

use std::io::{BufWriter, Write};
use std::path::Path;

use rand::{Rng as _, SeedableRng as _};
use rand_chacha::ChaCha8Rng;

/// The seed of every generated alignment.
pub(crate) const SEED: u64 = 20_261_121;

/// One way of writing the same cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Layout {
    /// Double-quoted attributes, the full `xsd:float` IRI as `rdf:datatype`, two-space
    /// indentation (the layout the benchmark always measured).
    Canonical,
    /// MELT's `AlignmentSerializer` byte for byte: the alignment namespace without `#`, an
    /// `Ontology` node with a `location` in the header, `rdf:datatype="xsd:float"`.
    Melt,
    /// The Alignment API's `RDFRendererVisitor`: every attribute single-quoted (the
    /// namespaces too), the full datatype IRI.
    SingleQuoted,
    /// Canonical, but the datatype as the CURIE `xsd:float` (LogMap, DOME, MELT).
    XsdPrefixed,
    /// Canonical, but the datatype as `&xsd;float` with a DOCTYPE declaring the entity
    /// (the OAEI anatomy and largebio references).
    EntityDatatype,
    /// AgreementMakerLight's layout: tab indentation, a blank line between maps and
    /// `<measure>` before `<relation>` (LogMap writes that order too).
    MeasureFirst,
    /// The OAEI conference references as MELT's test resources hold them: tab indentation,
    /// `<Cell cid='N'>`, single quotes, `xsd:float`, `<measure>` before `<relation>`.
    CellId,
}

impl Layout {
    /// Every layout, canonical first.
    pub(crate) const ALL: [Layout; 7] = [
        Layout::Canonical,
        Layout::Melt,
        Layout::SingleQuoted,
        Layout::XsdPrefixed,
        Layout::EntityDatatype,
        Layout::MeasureFirst,
        Layout::CellId,
    ];

    /// The name used in file names, `--layouts` and the report.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Layout::Canonical => "canonical",
            Layout::Melt => "melt",
            Layout::SingleQuoted => "single-quoted",
            Layout::XsdPrefixed => "xsd-prefixed",
            Layout::EntityDatatype => "entity-datatype",
            Layout::MeasureFirst => "measure-first",
            Layout::CellId => "cell-id",
        }
    }

    /// The layout called `name`.
    pub(crate) fn parse(name: &str) -> Option<Layout> {
        Layout::ALL.into_iter().find(|l| l.name() == name)
    }

    /// The system file of `cells` cells in this layout under `dir` (the canonical one keeps
    /// the name it always had).
    pub(crate) fn system_path(self, dir: &Path, cells: usize) -> std::path::PathBuf {
        match self {
            Layout::Canonical => dir.join(format!("system-{cells}.rdf")),
            other => dir.join(format!("system-{cells}-{}.rdf", other.name())),
        }
    }

    fn header(self) -> String {
        let onto = |side: &str| {
            format!("<onto{side}><Ontology rdf:about=\"http://bench.kgeval.org/{}\"/></onto{side}>\n", source(side))
        };
        let plain = |decl: &str, doctype: &str| {
            format!(
                "{decl}{doctype}<rdf:RDF xmlns=\"{ALIGN}#\"\n  xmlns:rdf=\"{RDF}\"\n  xmlns:xsd=\"{XSD}\">\n<Alignment>\n  <xml>yes</xml>\n  <level>0</level>\n  <type>??</type>\n  {}  {}",
                onto("1"),
                onto("2")
            )
        };
        match self {
            Layout::Canonical | Layout::XsdPrefixed => plain("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n", ""),
            Layout::EntityDatatype => plain(
                "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n",
                &format!("<!DOCTYPE rdf:RDF [\n  <!ENTITY xsd \"{XSD}\">\n]>\n"),
            ),
            Layout::Melt => {
                let onto = |side: &str| {
                    let name = source(side);
                    format!(
                        "  <onto{side}>\n    <Ontology rdf:about=\"http://bench.kgeval.org/{name}\">\n      <location>http://bench.kgeval.org/{name}.owl</location>\n    </Ontology>\n  </onto{side}>\n"
                    )
                };
                format!(
                    "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<rdf:RDF xmlns=\"{ALIGN}\"\n  xmlns:rdf=\"{RDF}\"\n  xmlns:xsd=\"{XSD}\">\n<Alignment>\n  <xml>yes</xml>\n  <level>0</level>\n  <type>??</type>\n{}{}",
                    onto("1"),
                    onto("2")
                )
            }
            Layout::SingleQuoted => {
                let onto = |side: &str| {
                    let name = source(side);
                    format!(
                        "  <onto{side}>\n    <Ontology rdf:about=\"http://bench.kgeval.org/{name}\">\n      <location>file:///bench/{name}.owl</location>\n      <formalism>\n        <Formalism align:name=\"OWL2.0\" align:uri=\"http://www.w3.org/2002/07/owl#\"/>\n      </formalism>\n    </Ontology>\n  </onto{side}>\n"
                    )
                };
                format!(
                    "<?xml version='1.0' encoding='utf-8' standalone='no'?>\n<rdf:RDF xmlns='{ALIGN}#'\n         xmlns:rdf='{RDF}'\n         xmlns:xsd='{XSD}'\n         xmlns:align='{ALIGN}#'>\n<Alignment>\n  <xml>yes</xml>\n  <level>0</level>\n  <type>**</type>\n{}{}",
                    onto("1"),
                    onto("2")
                )
            }
            Layout::CellId => {
                let onto = |side: &str| {
                    let name = source(side);
                    format!(
                        "\t\t\t\t<onto{side}>\n\t\t\t\t<Ontology rdf:about=\"http://bench.kgeval.org/{name}\">\n\t\t\t\t  <location>http://bench.kgeval.org/{name}.owl</location>\n\t\t\t\t</Ontology>\n\t\t\t\t</onto{side}>\n"
                    )
                };
                format!(
                    "<?xml version='1.0' encoding='utf-8'?>\n\t\t\t\t<rdf:RDF xmlns='{ALIGN}' \n\t\t\t\t\t xmlns:rdf='{RDF}' \n\t\t\t\t\t xmlns:xsd='{XSD}'>\n\t\t\t\t<Alignment>\n\t\t\t\t<xml>yes</xml>\n\t\t\t\t<level>0</level>\n\t\t\t\t<type>??</type>\n\t\t\t\t\n{}{}",
                    onto("1"),
                    onto("2")
                )
            }
            Layout::MeasureFirst => format!(
                "<?xml version='1.0' encoding='utf-8'?>\n<rdf:RDF xmlns='{ALIGN}'\n\t xmlns:rdf='{RDF}' \n\t xmlns:xsd='{XSD}' \n\t alignmentSource='AgreementMakerLight'>\n\n<Alignment>\n\t<xml>yes</xml>\n\t<level>0</level>\n\t<type>11</type>\n\t<onto1>http://bench.kgeval.org/source</onto1>\n\t<onto2>http://bench.kgeval.org/target</onto2>\n\t<uri1>http://bench.kgeval.org/source</uri1>\n\t<uri2>http://bench.kgeval.org/target</uri2>\n"
            ),
        }
    }

    /// Writes cell number `i` (from 1), of entities `e1` and `e2`.
    fn cell(self, w: &mut impl Write, i: usize, [e1, e2]: [u64; 2], measure: f64) -> std::io::Result<()> {
        let (s, t) = ("http://bench.kgeval.org/source#Entity_", "http://bench.kgeval.org/target#Entity_");
        match self {
            Layout::Canonical | Layout::XsdPrefixed | Layout::EntityDatatype | Layout::Melt => {
                let datatype = match self {
                    Layout::Canonical => "http://www.w3.org/2001/XMLSchema#float",
                    Layout::EntityDatatype => "&xsd;float",
                    _ => "xsd:float",
                };
                write!(
                    w,
                    "  <map>\n    <Cell>\n      <entity1 rdf:resource=\"{s}{e1}\"/>\n      <entity2 rdf:resource=\"{t}{e2}\"/>\n      <relation>=</relation>\n      <measure rdf:datatype=\"{datatype}\">{measure:.6}</measure>\n    </Cell>\n  </map>\n"
                )
            }
            Layout::SingleQuoted => write!(
                w,
                "  <map>\n    <Cell>\n      <entity1 rdf:resource='{s}{e1}'/>\n      <entity2 rdf:resource='{t}{e2}'/>\n      <relation>=</relation>\n      <measure rdf:datatype='{XSD}float'>{measure:.6}</measure>\n    </Cell>\n  </map>\n"
            ),
            Layout::CellId => write!(
                w,
                "\t\t\t\t\t\t\t<map>\n\t\t\t\t\t\t\t\t<Cell cid='{i}'>\n\t\t\t\t\t\t\t\t\t<entity1 rdf:resource='{s}{e1}'/>\n\t\t\t\t\t\t\t\t\t<entity2 rdf:resource='{t}{e2}'/>\n\t\t\t\t\t\t\t\t\t<measure rdf:datatype='xsd:float'>{measure:.6}</measure>\n\t\t\t\t\t\t\t\t\t<relation>=</relation>\n\t\t\t\t\t\t\t\t</Cell>\n\t\t\t\t\t\t\t</map>\n"
            ),
            Layout::MeasureFirst => write!(
                w,
                "\t<map>\n\t\t<Cell>\n\t\t\t<entity1 rdf:resource=\"{s}{e1}\"/>\n\t\t\t<entity2 rdf:resource=\"{t}{e2}\"/>\n\t\t\t<measure rdf:datatype=\"{XSD}float\">{measure:.6}</measure>\n\t\t\t<relation>=</relation>\n\t\t</Cell>\n\t</map>\n\n"
            ),
        }
    }
}

const ALIGN: &str = "http://knowledgeweb.semanticweb.org/heterogeneity/alignment";
const RDF: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#";
const XSD: &str = "http://www.w3.org/2001/XMLSchema#";

fn source(side: &str) -> &'static str {
    if side == "1" {
        "source"
    } else {
        "target"
    }
}

/// Writes the system alignment of `cells` cells in each of `layouts` (`(layout, path)`) and,
/// if given, the canonical reference of `cells / 10` cells: half of the reference cells are
/// in the system, the other half are not. The draws are the same for every file.
pub(crate) fn generate(systems: &[(Layout, &Path)], reference: Option<&Path>, cells: usize) -> anyhow::Result<()> {
    let mut rng = ChaCha8Rng::seed_from_u64(SEED);
    let entities = (cells as u64).max(10);
    let mut outs = Vec::new();
    for (layout, path) in systems {
        let mut w = BufWriter::new(std::fs::File::create(path)?);
        w.write_all(layout.header().as_bytes())?;
        outs.push((*layout, w));
    }
    let mut refw = match reference {
        Some(path) => {
            let mut w = BufWriter::new(std::fs::File::create(path)?);
            w.write_all(Layout::Canonical.header().as_bytes())?;
            Some(w)
        }
        None => None,
    };
    for i in 0..cells {
        let e1 = rng.gen_range(0..entities);
        let e2 = rng.gen_range(0..entities);
        let measure: f64 = rng.gen_range(0.0..1.0);
        for (layout, w) in &mut outs {
            layout.cell(w, i + 1, [e1, e2], measure)?;
        }
        if i % 10 == 0 {
            // Drawn whether or not the reference is written, so every file sees the same draws.
            let other = if (i / 10) % 2 == 0 { e2 } else { rng.gen_range(0..entities) };
            if let Some(w) = &mut refw {
                Layout::Canonical.cell(w, i / 10 + 1, [e1, other], 1.0)?;
            }
        }
    }
    for (_, w) in &mut outs {
        w.write_all(b"</Alignment>\n</rdf:RDF>\n")?;
        w.flush()?;
    }
    if let Some(w) = &mut refw {
        w.write_all(b"</Alignment>\n</rdf:RDF>\n")?;
        w.flush()?;
    }
    Ok(())
}
