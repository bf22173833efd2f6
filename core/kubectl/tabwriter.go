package kubectl

// This file owns kubectl's column alignment: the tab writer its table,
// custom-columns and api-resources printers write through (text/tabwriter's
// algorithm with kubectl's settings: cells at least 6 wide, 3 spaces of
// padding, and widths remembered across flushes, as kubectl's fork of
// tabwriter remembers them, so that a watch's rows line up with the list's).

import (
	"io"
	"strings"
	"unicode/utf8"
)

const (
	tabMinWidth = 6
	tabPadding  = 3
)

// tabWriter buffers tab-separated lines and writes them aligned on Flush.
type tabWriter struct {
	out       io.Writer
	buf       strings.Builder
	widths    []int // the columns being formatted
	maxwidths []int // the widest each column has been
	b         strings.Builder
}

func newTabWriter(out io.Writer) *tabWriter { return &tabWriter{out: out} }

func (t *tabWriter) Write(p []byte) (int, error) { return t.buf.Write(p) }

func (t *tabWriter) WriteString(s string) (int, error) { return t.buf.WriteString(s) }

// Flush aligns and writes the complete lines buffered, and any incomplete
// last line as it is.
func (t *tabWriter) Flush() error {
	text := t.buf.String()
	t.buf.Reset()
	if text == "" {
		return nil
	}
	rawLines := strings.SplitAfter(text, "\n")
	if rawLines[len(rawLines)-1] == "" {
		rawLines = rawLines[:len(rawLines)-1]
	}
	lines := make([][]string, len(rawLines))
	newline := make([]bool, len(rawLines))
	for i, l := range rawLines {
		newline[i] = strings.HasSuffix(l, "\n")
		lines[i] = strings.Split(strings.TrimSuffix(l, "\n"), "\t")
	}
	t.b.Reset()
	t.format(lines, newline, 0, len(lines))
	_, err := io.WriteString(t.out, t.b.String())
	return err
}

// format is text/tabwriter's: each block of consecutive lines with a cell in
// the next column gets that column's width, and its lines the columns
// further right.
func (t *tabWriter) format(lines [][]string, newline []bool, line0, line1 int) {
	column := len(t.widths)
	for this := line0; this < line1; this++ {
		if column >= len(lines[this])-1 {
			continue
		}
		t.writeLines(lines, newline, line0, this)
		line0 = this
		width := tabMinWidth
		for ; this < line1 && column < len(lines[this])-1; this++ {
			if w := utf8.RuneCountInString(lines[this][column]) + tabPadding; w > width {
				width = w
			}
		}
		if len(t.maxwidths) < len(t.widths) {
			t.maxwidths = append(t.maxwidths, t.widths[len(t.maxwidths):]...)
		}
		switch {
		case len(t.maxwidths) == len(t.widths):
			t.maxwidths = append(t.maxwidths, width)
		case t.maxwidths[len(t.widths)] > width:
			width = t.maxwidths[len(t.widths)]
		default:
			t.maxwidths[len(t.widths)] = width
		}
		t.widths = append(t.widths, width)
		t.format(lines, newline, line0, this)
		t.widths = t.widths[:len(t.widths)-1]
		line0 = this
	}
	t.writeLines(lines, newline, line0, line1)
}

func (t *tabWriter) writeLines(lines [][]string, newline []bool, line0, line1 int) {
	for i := line0; i < line1; i++ {
		for j, c := range lines[i] {
			t.b.WriteString(c)
			if j < len(t.widths) {
				t.b.WriteString(strings.Repeat(" ", max(0, t.widths[j]-utf8.RuneCountInString(c))))
			}
		}
		if newline[i] {
			t.b.WriteByte('\n')
		}
	}
}
