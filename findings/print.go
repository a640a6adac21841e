package findings

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Formats are the output formats of the check commands.
const (
	FormatText          = "text"
	FormatJSON          = "json"
	FormatYAML          = "yaml"
	FormatGitHubActions = "github-actions"
)

// WriteJSON writes v as indented JSON without HTML escaping: the one JSON
// encoding of the check commands' reports.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// PrintText prints one finding per line as
//
//	file:line:col: severity RULE: message
//	    subject
//	    hint: hint
//
// (the position only when there is a file; the subject and hint lines only
// when they are set).
func PrintText(w io.Writer, fs []Finding) error {
	var b strings.Builder
	for _, f := range fs {
		if p := f.Pos(); p != "" {
			b.WriteString(p + ": ")
		}
		fmt.Fprintf(&b, "%s %s: %s\n", f.Severity, f.Rule, f.Message)
		if f.Subject != "" {
			fmt.Fprintf(&b, "    %s\n", f.Subject)
		}
		if f.Hint != "" {
			fmt.Fprintf(&b, "    hint: %s\n", f.Hint)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// PrintGitHubActions prints one GitHub Actions workflow command per finding:
//
//	::error file=F,line=L,col=C,title=RULE::message%0Ahint: hint
//
// error and warning findings are ::error and ::warning, others ::notice.
// The position properties are left out when unknown; without a file the
// subject leads the message, since nothing else places the finding.
func PrintGitHubActions(w io.Writer, fs []Finding) error {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(Annotation(f))
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Annotation is f as one GitHub Actions workflow command (no newline).
func Annotation(f Finding) string {
	level := "notice"
	switch f.Severity {
	case SeverityError:
		level = "error"
	case SeverityWarning:
		level = "warning"
	}
	var props []string
	if f.File != "" {
		props = append(props, "file="+EscapeProperty(f.File))
		if f.Line > 0 {
			props = append(props, fmt.Sprintf("line=%d", f.Line))
			if f.Col > 0 {
				props = append(props, fmt.Sprintf("col=%d", f.Col))
			}
		}
	}
	if f.Rule != "" {
		props = append(props, "title="+EscapeProperty(f.Rule))
	}
	msg := f.Message
	if f.File == "" && f.Subject != "" {
		msg = f.Subject + ": " + msg
	}
	if f.Hint != "" {
		msg += "\nhint: " + f.Hint
	}
	return "::" + level + " " + strings.Join(props, ",") + "::" + EscapeData(msg)
}

var (
	dataEscaper = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	propEscaper = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)

// EscapeData escapes the message of a GitHub Actions workflow command (as
// @actions/core's escapeData: %, CR, LF).
func EscapeData(s string) string { return dataEscaper.Replace(s) }

// EscapeProperty escapes a property value of a GitHub Actions workflow
// command (as @actions/core's escapeProperty: also : and ,).
func EscapeProperty(s string) string { return propEscaper.Replace(s) }

// PrintSummary writes fs as a Markdown section for $GITHUB_STEP_SUMMARY: a
// heading, a one-line verdict and a table of the findings.
func PrintSummary(w io.Writer, title string, fs []Finding) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## %s\n\n", title)
	c := Count(fs)
	if len(fs) == 0 {
		b.WriteString("No findings.\n\n")
		_, err := io.WriteString(w, b.String())
		return err
	}
	fmt.Fprintf(&b, "**%d error(s), %d warning(s), %d note(s).**\n\n", c.Errors, c.Warnings, c.Infos)
	b.WriteString("| Severity | Rule | Where | Message |\n|---|---|---|---|\n")
	for _, f := range fs {
		where := MarkdownCell(f.Subject)
		if p := f.Pos(); p != "" {
			where = "`" + MarkdownCell(p) + "`"
		}
		msg := MarkdownCell(f.Message)
		if f.File != "" && f.Subject != "" {
			msg = MarkdownCell(f.Subject) + ": " + msg
		}
		if f.Hint != "" {
			msg += "<br>hint: " + MarkdownCell(f.Hint)
		}
		sev := string(f.Severity)
		if f.Severity == SeverityError {
			sev = "**error**"
		}
		fmt.Fprintf(&b, "| %s | `%s` | %s | %s |\n", sev, MarkdownCell(f.Rule), where, msg)
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// MarkdownCell makes s safe in a Markdown table cell: | is escaped and line
// breaks become spaces.
func MarkdownCell(s string) string {
	return strings.NewReplacer("|", "\\|", "\r\n", " ", "\n", " ", "\r", " ").Replace(s)
}
