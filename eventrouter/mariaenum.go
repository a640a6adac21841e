package eventrouter

import (
	"regexp"
	"strings"
)

// mariaLabel is one label of a MySQL / MariaDB ENUM or SET column in its
// three forms:
//   - stored: the label as the database keeps it (a quote is ', a
//     backslash \);
//   - printed: as SHOW CREATE TABLE and information_schema print it
//     (append_unescaped: a quote doubled, a backslash doubled, a zero
//     byte \0, a newline \n, a carriage return \r), which is the text the
//     connector's DDL parser reads between the quotes;
//   - option: what the connector makes of the printed text
//     (MariaDbAntlrDdlParser.escapeOption: a comma written \, then \'
//     and ” as one quote; a doubled backslash stays doubled). A row's
//     value is the option of its label (BinlogValueConverters picks it by
//     the binlog's index) and the schema's "allowed" parameter joins the
//     options with commas.
type mariaLabel struct {
	stored, printed, option string
}

var mariaEnumItemRe = regexp.MustCompile(`^\s*'((?:[^'\\]|''|\\.)*)'\s*(,|$)`)

// mariaEnumLabels reads a MySQL / MariaDB ENUM('a','b') or SET('a','b')
// type, its labels written as SQL string literals (as COLUMN_TYPE prints
// them, or as CREATE TABLE may write them: 'it\'s' is the label it's);
// ok is false for another type or an unreadable label list.
func mariaEnumLabels(sqlType string) (kind string, labels []mariaLabel, ok bool) {
	kind, stored, ok := enumLabelsWith(sqlType, mariaEnumItemRe, mariaUnescape)
	for _, st := range stored {
		printed := mariaPrint(st)
		labels = append(labels, mariaLabel{stored: st, printed: printed, option: mariaEscapeOption(printed)})
	}
	return kind, labels, ok
}

// mariaUnescape is the string a MySQL / MariaDB single-quoted literal's
// inside stands for (sql_mode without NO_BACKSLASH_ESCAPES): ” is a
// quote; \0 \b \n \r \t \Z are NUL, backspace, newline, carriage return,
// tab and Ctrl-Z; \% and \_ keep their backslash; another \x is x.
func mariaUnescape(in string) string {
	var b strings.Builder
	for i := 0; i < len(in); i++ {
		c := in[i]
		switch {
		case c == '\'' && i+1 < len(in) && in[i+1] == '\'':
			b.WriteByte('\'')
			i++
		case c == '\\' && i+1 < len(in):
			i++
			switch e := in[i]; e {
			case '0':
				b.WriteByte(0)
			case 'b':
				b.WriteByte('\b')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'Z':
				b.WriteByte(0x1a)
			case '%', '_':
				b.WriteByte('\\')
				b.WriteByte(e)
			default:
				b.WriteByte(e)
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// mariaPrint is a stored string as MariaDB's append_unescaped prints it
// between the quotes of SHOW CREATE TABLE (an ENUM / SET label, a string
// DEFAULT): ' and \ doubled, NUL \0, newline \n, carriage return \r; the
// other bytes as they are.
func mariaPrint(stored string) string {
	var b strings.Builder
	for i := 0; i < len(stored); i++ {
		switch c := stored[i]; c {
		case 0:
			b.WriteString(`\0`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\\':
			b.WriteString(`\\`)
		case '\'':
			b.WriteString(`''`)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// mariaEscapeOption is MariaDbAntlrDdlParser.escapeOption of a label's
// printed text: option.replaceAll(",", "\\,").replaceAll("\\'",
// "'").replace("”", "'").
func mariaEscapeOption(printed string) string {
	o := strings.ReplaceAll(printed, ",", `\,`)
	o = strings.ReplaceAll(o, `\'`, "'")
	return strings.ReplaceAll(o, "''", "'")
}

// mariaMatchLabel is the index of the label a value (or a DEFAULT) names:
// compared as the column's default collation does, case-insensitively and
// without trailing blanks; -1 when none.
func mariaMatchLabel(labels []mariaLabel, v string) int {
	for i, l := range labels {
		if strings.EqualFold(strings.TrimRight(l.stored, " "), strings.TrimRight(v, " ")) {
			return i
		}
	}
	return -1
}

// mariaUnescapeDouble is the string a double-quoted MySQL / MariaDB
// literal's inside stands for: "" is a double quote, backslash escapes as
// in a single-quoted one.
func mariaUnescapeDouble(in string) string {
	return mariaUnescape(strings.ReplaceAll(strings.ReplaceAll(in, "''", "\\'\\'"), `""`, `\"`))
}
