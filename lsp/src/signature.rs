//! Signature help: the forms of the command on the line, the one that fits what was typed so far
//! active, and the positional being typed highlighted.

use ad_compiler::registry::{ArgKind, Form};
use lsp_types::{
    Documentation, ParameterInformation, ParameterLabel, SignatureHelp, SignatureHelpParams,
    SignatureInformation,
};

use crate::cursor::{arg_role, form_slot, place, Place};
use crate::request::Snapshot;

fn positional_label(p: &ad_compiler::registry::Positional) -> String {
    if let ArgKind::Enum([word]) = p.kind {
        return word.to_string();
    }
    let dots = if p.variadic { "…" } else { "" };
    if p.optional {
        format!("[{}{dots}]", p.name)
    } else {
        format!("<{}{dots}>", p.name)
    }
}

fn signature(command: &str, form: &Form, summary: &str) -> SignatureInformation {
    let mut label = command.to_string();
    let mut parameters = Vec::new();
    for p in form.positionals {
        label.push(' ');
        let start = label.encode_utf16().count() as u32;
        label.push_str(&positional_label(p));
        let end = label.encode_utf16().count() as u32;
        parameters.push(ParameterInformation {
            label: ParameterLabel::LabelOffsets([start, end]),
            documentation: None,
        });
    }
    SignatureInformation {
        label,
        documentation: Some(Documentation::String(summary.to_string())),
        parameters: Some(parameters),
        active_parameter: None,
    }
}

pub fn signature_help(snap: &Snapshot, params: SignatureHelpParams) -> Option<SignatureHelp> {
    let doc = &snap.doc;
    let analysis = doc.analysis().ok()?;
    let offset = doc
        .lines
        .offset(&doc.text, params.text_document_position_params.position);
    let Place::Argument(p) = place(doc, analysis, offset) else {
        return None;
    };
    let spec = p.spec?;
    if spec.forms.iter().all(|f| f.positionals.is_empty()) {
        return None;
    }
    let role = arg_role(&doc.text, &p);
    let signatures: Vec<SignatureInformation> = spec
        .forms
        .iter()
        .map(|f| signature(spec.name, f, spec.summary))
        .collect();
    let active = spec
        .forms
        .iter()
        .position(|f| form_slot(f, &role.before).is_some());
    let active_parameter = active.map(|i| {
        let n = spec.forms[i].positionals.len();
        role.positional.min(n.saturating_sub(1)) as u32
    });
    Some(SignatureHelp {
        signatures,
        active_signature: active.map(|i| i as u32),
        active_parameter,
    })
}
