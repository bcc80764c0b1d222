// Package policy is an oslo.policy engine with Magnum's default rules: the
// API asks it whether a caller may apply a rule to a target.
package policy

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"unicode"

	"sigs.k8s.io/yaml"

	"github.com/openkeel/keel/restapi/auth"
)

// Magnum authorises with oslo.policy: every route names a rule, a rule is a
// boolean expression over the caller's credentials and a target (the
// resource's project_id and user_id, or the caller's own when there is no
// resource). keel ships Magnum 2026.2's reader/member/admin defaults and
// reads operator overrides from a YAML or JSON policy file with the same
// rule names and the oslo.policy syntax subset those defaults use:
//
//	role:X   rule:Y   project_id:%(project_id)s   user_id:%(user_id)s
//	field:literal   @ (always)   ! (never)   and / or / not / ( )
//
// A file overrides rules one by one; rules it does not name keep their
// default.

// defaultPolicies are Magnum's defaults with enforce_new_defaults on (the
// deprecated admin_or_owner forms are not reproduced).
var defaultPolicies = map[string]string{
	"context_is_admin": "role:admin",
	"admin_api":        "rule:context_is_admin",
	"project_member":   "role:member and project_id:%(project_id)s",
	"project_reader":   "role:reader and project_id:%(project_id)s",
	"is_user":          "user_id:%(user_id)s",

	"cluster:create":                       "rule:context_is_admin or rule:project_member",
	"cluster:delete":                       "rule:context_is_admin or rule:project_member",
	"cluster:delete_all_projects":          "rule:context_is_admin",
	"cluster:detail":                       "rule:context_is_admin or rule:project_reader",
	"cluster:detail_all_projects":          "rule:context_is_admin",
	"cluster:get":                          "rule:context_is_admin or rule:project_reader",
	"cluster:get_one_all_projects":         "rule:context_is_admin",
	"cluster:get_all":                      "rule:context_is_admin or rule:project_reader",
	"cluster:get_all_all_projects":         "rule:context_is_admin",
	"cluster:update":                       "rule:context_is_admin or rule:project_member",
	"cluster:update_health_status":         "rule:context_is_admin or (rule:project_member and rule:is_user)",
	"cluster:update_all_projects":          "rule:context_is_admin",
	"cluster:resize":                       "rule:context_is_admin or rule:project_member",
	"cluster:upgrade":                      "rule:context_is_admin or rule:project_member",
	"cluster:upgrade_all_projects":         "rule:context_is_admin",
	"clustertemplate:create":               "rule:context_is_admin or rule:project_member",
	"clustertemplate:delete":               "rule:context_is_admin or rule:project_member",
	"clustertemplate:delete_all_projects":  "rule:context_is_admin",
	"clustertemplate:detail_all_projects":  "rule:context_is_admin",
	"clustertemplate:detail":               "rule:context_is_admin or rule:project_reader",
	"clustertemplate:get":                  "rule:context_is_admin or rule:project_reader",
	"clustertemplate:get_one_all_projects": "rule:context_is_admin",
	"clustertemplate:get_all":              "rule:context_is_admin or rule:project_reader",
	"clustertemplate:get_all_all_projects": "rule:context_is_admin",
	"clustertemplate:update":               "rule:context_is_admin or rule:project_member",
	"clustertemplate:update_all_projects":  "rule:context_is_admin",
	"clustertemplate:publish":              "rule:context_is_admin",
	"nodegroup:get":                        "rule:context_is_admin or rule:project_reader",
	"nodegroup:get_all":                    "rule:context_is_admin or rule:project_reader",
	"nodegroup:get_all_all_projects":       "rule:context_is_admin",
	"nodegroup:get_one_all_projects":       "rule:context_is_admin",
	"nodegroup:create":                     "rule:context_is_admin or rule:project_member",
	"nodegroup:update":                     "rule:context_is_admin or rule:project_member",
	"nodegroup:delete":                     "rule:context_is_admin or rule:project_member",
	// Deliberate difference (docs/api.md): Magnum limits these two to the
	// cluster's creator ("and rule:is_user"), so a teammate's `coe cluster
	// config` fails with 403; keel allows the project's members (who may
	// already delete or resize the cluster) and readers (the CA is public).
	"certificate:create":     "rule:context_is_admin or rule:project_member",
	"certificate:get":        "rule:context_is_admin or rule:project_reader",
	"certificate:rotate_ca":  "rule:context_is_admin or rule:project_member",
	"quota:get_all":          "rule:context_is_admin",
	"quota:get":              "rule:context_is_admin or rule:project_reader",
	"quota:create":           "rule:context_is_admin",
	"quota:update":           "rule:context_is_admin",
	"quota:delete":           "rule:context_is_admin",
	"stats:get_all":          "rule:context_is_admin or rule:project_reader",
	"magnum-service:get_all": "rule:context_is_admin",
	"federation:get_all":     "rule:context_is_admin or rule:project_reader",
	"federation:detail":      "rule:context_is_admin or rule:project_reader",
	"federation:get":         "rule:context_is_admin or rule:project_reader",
	"federation:create":      "rule:context_is_admin or rule:project_member",
	"federation:update":      "rule:context_is_admin or rule:project_member",
	"federation:delete":      "rule:context_is_admin or rule:project_member",
	// Magnum gives credential rotation no admin clause.
	"credential:rotate": "rule:project_member",
}

// Policy is a parsed rule set.
type Policy struct {
	rules map[string]policyExpr
}

// Default returns Magnum's default rules.
func Default() *Policy {
	p, err := New(nil)
	if err != nil {
		panic(err) // the defaults are constants: a parse error is a bug
	}
	return p
}

// New parses overrides (rule → expression) on top of the defaults.
func New(overrides map[string]string) (*Policy, error) {
	p := &Policy{rules: map[string]policyExpr{}}
	merged := map[string]string{}
	for k, v := range defaultPolicies {
		merged[k] = v
	}
	for k, v := range overrides {
		merged[k] = v
	}
	names := make([]string, 0, len(merged))
	for k := range merged {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		e, err := parsePolicy(merged[k])
		if err != nil {
			return nil, fmt.Errorf("policy rule %q: %w", k, err)
		}
		p.rules[k] = e
	}
	return p, nil
}

// Load reads a policy file (YAML or JSON: a map of rule name to
// expression, as oslo.policy's policy.yaml) over the defaults.
func Load(path string) (*Policy, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m map[string]string
	if err := yaml.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	p, err := New(m)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// Target is what a rule is checked against: the resource's project and
// creator, or the caller's own when the route has no resource (oslo's
// default target), which reduces project checks to role checks.
type Target map[string]string

func ownTarget(c *auth.Credentials) Target {
	return Target{"project_id": c.ProjectID, "user_id": c.UserID}
}

// Allowed evaluates rule for the caller. An unknown rule is denied (oslo's
// default_rule is unset in Magnum).
func (p *Policy) Allowed(rule string, creds *auth.Credentials, target Target) bool {
	e, ok := p.rules[rule]
	if !ok {
		return false
	}
	if target == nil {
		target = ownTarget(creds)
	}
	return e.eval(p, creds, target, 0)
}

// policyExpr is a parsed oslo.policy expression.
type policyExpr interface {
	eval(p *Policy, c *auth.Credentials, t Target, depth int) bool
}

type (
	andExpr   []policyExpr
	orExpr    []policyExpr
	notExpr   struct{ e policyExpr }
	constExpr bool
	roleExpr  string
	ruleExpr  string
	// fieldExpr is oslo's generic check `kind:match`: match (after
	// %(key)s substitution from the target) must equal the credential
	// attribute kind.
	fieldExpr struct{ kind, match string }
)

func (e andExpr) eval(p *Policy, c *auth.Credentials, t Target, d int) bool {
	for _, x := range e {
		if !x.eval(p, c, t, d) {
			return false
		}
	}
	return true
}

func (e orExpr) eval(p *Policy, c *auth.Credentials, t Target, d int) bool {
	for _, x := range e {
		if x.eval(p, c, t, d) {
			return true
		}
	}
	return false
}

func (e notExpr) eval(p *Policy, c *auth.Credentials, t Target, d int) bool {
	return !e.e.eval(p, c, t, d)
}
func (e constExpr) eval(*Policy, *auth.Credentials, Target, int) bool { return bool(e) }
func (e roleExpr) eval(_ *Policy, c *auth.Credentials, _ Target, _ int) bool {
	return c.HasRole(string(e))
}

func (e ruleExpr) eval(p *Policy, c *auth.Credentials, t Target, d int) bool {
	r, ok := p.rules[string(e)]
	if !ok || d > 32 { // unknown rules fail closed; so do reference cycles
		return false
	}
	return r.eval(p, c, t, d+1)
}

func (e fieldExpr) eval(_ *Policy, c *auth.Credentials, t Target, _ int) bool {
	want := e.match
	if strings.HasPrefix(want, "%(") && strings.HasSuffix(want, ")s") {
		v, ok := t[want[2:len(want)-2]]
		if !ok {
			return false
		}
		want = v
	} else {
		want = strings.Trim(want, `'"`)
	}
	var have string
	switch e.kind {
	case "project_id", "tenant":
		have = c.ProjectID
	case "user_id":
		have = c.UserID
	case "is_admin":
		have = "False"
		if c.IsAdmin() {
			have = "True"
		}
	default:
		return false
	}
	return have != "" && have == want
}

// parsePolicy parses an expression. The empty expression allows everyone,
// as in oslo.policy.
func parsePolicy(s string) (policyExpr, error) {
	toks := tokenizePolicy(s)
	if len(toks) == 0 {
		return constExpr(true), nil
	}
	ps := &policyParser{toks: toks}
	e, err := ps.or()
	if err != nil {
		return nil, err
	}
	if ps.i != len(ps.toks) {
		return nil, fmt.Errorf("unexpected %q", ps.toks[ps.i])
	}
	return e, nil
}

func tokenizePolicy(s string) []string {
	var out []string
	cur := strings.Builder{}
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, cur.String())
			cur.Reset()
		}
	}
	for _, r := range s {
		switch {
		case r == '(' || r == ')':
			// "%(project_id)s" keeps its parentheses: they belong to a check.
			if r == '(' && strings.HasSuffix(cur.String(), "%") || r == ')' && strings.Contains(cur.String(), "%(") && !strings.Contains(cur.String(), ")") {
				cur.WriteRune(r)
				continue
			}
			flush()
			out = append(out, string(r))
		case unicode.IsSpace(r):
			flush()
		default:
			cur.WriteRune(r)
		}
	}
	flush()
	return out
}

type policyParser struct {
	toks []string
	i    int
}

func (p *policyParser) peek() string {
	if p.i < len(p.toks) {
		return p.toks[p.i]
	}
	return ""
}

func (p *policyParser) or() (policyExpr, error) {
	e, err := p.and()
	if err != nil {
		return nil, err
	}
	terms := orExpr{e}
	for strings.EqualFold(p.peek(), "or") {
		p.i++
		e, err := p.and()
		if err != nil {
			return nil, err
		}
		terms = append(terms, e)
	}
	if len(terms) == 1 {
		return terms[0], nil
	}
	return terms, nil
}

func (p *policyParser) and() (policyExpr, error) {
	e, err := p.unary()
	if err != nil {
		return nil, err
	}
	terms := andExpr{e}
	for strings.EqualFold(p.peek(), "and") {
		p.i++
		e, err := p.unary()
		if err != nil {
			return nil, err
		}
		terms = append(terms, e)
	}
	if len(terms) == 1 {
		return terms[0], nil
	}
	return terms, nil
}

func (p *policyParser) unary() (policyExpr, error) {
	t := p.peek()
	switch {
	case t == "":
		return nil, fmt.Errorf("unexpected end of expression")
	case strings.EqualFold(t, "not"):
		p.i++
		e, err := p.unary()
		if err != nil {
			return nil, err
		}
		return notExpr{e}, nil
	case t == "(":
		p.i++
		e, err := p.or()
		if err != nil {
			return nil, err
		}
		if p.peek() != ")" {
			return nil, fmt.Errorf("missing )")
		}
		p.i++
		return e, nil
	}
	p.i++
	switch t {
	case "@":
		return constExpr(true), nil
	case "!":
		return constExpr(false), nil
	}
	kind, match, ok := strings.Cut(t, ":")
	if !ok || kind == "" || match == "" {
		return nil, fmt.Errorf("malformed check %q", t)
	}
	switch kind {
	case "role":
		return roleExpr(match), nil
	case "rule":
		return ruleExpr(match), nil
	case "project_id", "tenant", "user_id", "is_admin":
		return fieldExpr{kind: kind, match: match}, nil
	}
	return nil, fmt.Errorf("unsupported check %q (keel supports role:, rule:, project_id:, user_id:, is_admin:)", t)
}
