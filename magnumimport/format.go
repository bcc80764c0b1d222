package magnumimport

import (
	"fmt"
	"io"
)

// Print writes the plan as keel import --plan shows it: per project what
// its commit would do, then what cannot be imported and why.
func (p *Plan) Print(w io.Writer) error {
	pr := &printer{w: w}
	pr.f("keel import from %s (Magnum schema %s)\n", p.Source, p.Version)
	commits := 0
	for _, u := range p.Units {
		if !u.Writes() {
			pr.f("\nproject %s: nothing to write (%s already in keel as Magnum has them)\n", u.Project, count(u.Unchanged, "objects"))
			continue
		}
		commits++
		pr.f("\nproject %s: one commit (%s; %d unchanged)\n", u.Project, u.summary(), u.Unchanged)
		for _, l := range u.Lines {
			pr.f("  %s\n", l)
		}
	}
	if len(p.Skipped) > 0 {
		pr.f("\nnot imported, by design:\n")
		for _, s := range p.Skipped {
			pr.f("  %s\n", s)
		}
	}
	if len(p.Refused) > 0 {
		pr.f("\ncannot be imported (the import writes nothing until these are fixed in Magnum or allowed by site.cue):\n")
		for _, s := range p.Refused {
			pr.f("  %s\n", s)
		}
	}
	pr.f("\n%s to write, %s refused\n", count(commits, "commits"), count(len(p.Refused), "objects"))
	return pr.err
}

type printer struct {
	w   io.Writer
	err error
}

func (p *printer) f(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}
