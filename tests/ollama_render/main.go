// Command ollama_render reads an ollama Modelfile and chat conversations and prints the
// prompts ollama would send the model, rendered by Go's own text/template.
//
// It follows what ollama does with a Modelfile and a /api/chat request:
//
//   - the Modelfile is read as ollama's parser reads it: a command name, a value that is a
//     bare word, "a string" or """a string over several lines""" (no escapes), runs of
//     non-printable runes other than space, tab and newline dropped;
//   - TEMPLATE is parsed with text/template (missing keys are zero values); a template that
//     names neither .Messages nor .Response gets {{ .Response }} appended;
//   - a request whose first message is not a system message gets the Modelfile's SYSTEM
//     as one in front;
//   - consecutive messages of one role are joined with a blank line, and every system
//     message's text, joined so, is .System;
//   - a template that names .Messages is executed once with .System and .Messages (each
//     with .Role and .Content); any other template once per turn with .System (the first
//     turn only), .Prompt and .Response, earlier turns whole and the last one cut right
//     after {{ .Response }}, so the prompt ends where the model's answer starts.
//
// Input (stdin, JSON): {"modelfile": "...", "conversations": [{"messages": [{"role": ..,
// "content": ..}, ...], "no_modelfile_system": false}, ...]}
// Output (stdout, JSON): {"template": .., "system": .., "stops": [..], "prompts": [..]}
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"text/template"
	"text/template/parse"
)

type message struct {
	Role       string `json:"role"`
	Content    string `json:"content"`
	Thinking   string `json:"-"`
	ToolName   string `json:"-"`
	ToolCallID string `json:"-"`
	ToolCalls  []any  `json:"-"`
	Images     []any  `json:"-"`
}

type conversation struct {
	Messages          []message `json:"messages"`
	NoModelfileSystem bool      `json:"no_modelfile_system"`
}

type request struct {
	Modelfile     string         `json:"modelfile"`
	Conversations []conversation `json:"conversations"`
}

type command struct{ name, value string }

// ----- the Modelfile --------------------------------------------------------------------

func isSpace(r rune) bool   { return r == ' ' || r == '\t' }
func isNewline(r rune) bool { return r == '\r' || r == '\n' }
func isLetter(r rune) bool  { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }

// unquote gives a value's text and whether the value is complete: a bare word always is,
// a quoted one once its closing quotes are there.
func unquote(s string) (string, bool) {
	if strings.HasPrefix(s, `"""`) {
		if len(s) >= 6 && strings.HasSuffix(s, `"""`) {
			return s[3 : len(s)-3], true
		}
		return "", false
	}
	if strings.HasPrefix(s, `"`) {
		if len(s) >= 2 && strings.HasSuffix(s, `"`) {
			return s[1 : len(s)-1], true
		}
		return "", false
	}
	return s, true
}

func parseModelfile(text string) ([]command, error) {
	const (
		between = iota // before a command
		comment
		name
		paramName
		value
	)
	var out []command
	var cmd command
	var buf strings.Builder
	state := between
	finish := func() bool {
		v, ok := unquote(strings.TrimSpace(buf.String()))
		if ok {
			cmd.value = v
			out = append(out, cmd)
			cmd = command{}
			buf.Reset()
		}
		return ok
	}
	for _, r := range strings.TrimPrefix(text, "\ufeff") {
		switch state {
		case between:
			switch {
			case r == '#':
				state = comment
			case isSpace(r) || isNewline(r):
			default:
				state = name
				buf.WriteRune(r)
			}
		case comment:
			if isNewline(r) {
				state = between
			}
		case name:
			switch {
			case isLetter(r):
				buf.WriteRune(r)
			case isSpace(r):
				cmd.name = strings.ToLower(buf.String())
				buf.Reset()
				if cmd.name == "parameter" {
					state = paramName
				} else {
					state = value
				}
			default:
				return nil, fmt.Errorf("invalid command %q", buf.String())
			}
		case paramName:
			switch {
			case isLetter(r) || r >= '0' && r <= '9' || r == '_':
				buf.WriteRune(r)
			case isSpace(r):
				cmd.name = "parameter " + buf.String()
				buf.Reset()
				state = value
			default:
				return nil, errors.New("unexpected end of a PARAMETER line")
			}
		case value:
			switch {
			case isNewline(r):
				if finish() {
					state = between
				} else {
					buf.WriteRune(r)
				}
			case isSpace(r):
				buf.WriteRune(r)
			case strconv.IsPrint(r):
				buf.WriteRune(r)
			}
		}
	}
	switch state {
	case value:
		if !finish() {
			return nil, errors.New("unexpected end of the Modelfile inside a quoted value")
		}
	case between, comment:
	default:
		return nil, errors.New("unexpected end of the Modelfile")
	}
	return out, nil
}

// ----- the template -----------------------------------------------------------------------

func identifiers(n parse.Node) []string {
	switch n := n.(type) {
	case *parse.ListNode:
		var out []string
		if n == nil {
			return nil
		}
		for _, c := range n.Nodes {
			out = append(out, identifiers(c)...)
		}
		return out
	case *parse.ActionNode:
		return identifiers(n.Pipe)
	case *parse.TemplateNode:
		return identifiers(n.Pipe)
	case *parse.IfNode:
		return identifiers(&n.BranchNode)
	case *parse.RangeNode:
		return identifiers(&n.BranchNode)
	case *parse.WithNode:
		return identifiers(&n.BranchNode)
	case *parse.BranchNode:
		out := identifiers(n.Pipe)
		out = append(out, identifiers(n.List)...)
		if n.ElseList != nil {
			out = append(out, identifiers(n.ElseList)...)
		}
		return out
	case *parse.PipeNode:
		var out []string
		if n == nil {
			return nil
		}
		for _, c := range n.Cmds {
			for _, a := range c.Args {
				out = append(out, identifiers(a)...)
			}
		}
		return out
	case *parse.FieldNode:
		return n.Ident
	case *parse.VariableNode:
		return n.Ident
	}
	return nil
}

func names(t *template.Template) map[string]bool {
	out := map[string]bool{}
	for _, tt := range t.Templates() {
		for _, n := range tt.Tree.Root.Nodes {
			for _, id := range identifiers(n) {
				out[strings.ToLower(id)] = true
			}
		}
	}
	return out
}

var funcs = template.FuncMap{
	"json": func(v any) string {
		b, _ := json.Marshal(v)
		return string(b)
	},
}

func parseTemplate(text string) (*template.Template, map[string]bool, error) {
	t, err := template.New("").Option("missingkey=zero").Funcs(funcs).Parse(text)
	if err != nil {
		return nil, nil, err
	}
	vars := names(t)
	if !vars["messages"] && !vars["response"] {
		response := &parse.ActionNode{NodeType: parse.NodeAction, Pipe: &parse.PipeNode{NodeType: parse.NodePipe,
			Cmds: []*parse.CommandNode{{NodeType: parse.NodeCommand,
				Args: []parse.Node{&parse.FieldNode{NodeType: parse.NodeField, Ident: []string{"Response"}}}}}}}
		t.Tree.Root.Nodes = append(t.Tree.Root.Nodes, response)
	}
	return t, vars, nil
}

// upToResponse drops every node that comes after the first {{ .Response }} (in the order the
// template writes them), keeping that field itself.
func upToResponse(n parse.Node, cut *bool) parse.Node {
	if *cut {
		return nil
	}
	switch n := n.(type) {
	case *parse.ListNode:
		var kept []parse.Node
		for _, c := range n.Nodes {
			if k := upToResponse(c, cut); k != nil {
				kept = append(kept, k)
			}
		}
		n.Nodes = kept
	case *parse.IfNode:
		upToBranch(&n.BranchNode, cut)
	case *parse.RangeNode:
		upToBranch(&n.BranchNode, cut)
	case *parse.WithNode:
		upToBranch(&n.BranchNode, cut)
	case *parse.ActionNode:
		p := upToResponse(n.Pipe, cut)
		if p == nil {
			return nil
		}
		n.Pipe = p.(*parse.PipeNode)
	case *parse.PipeNode:
		var cmds []*parse.CommandNode
		for _, c := range n.Cmds {
			var args []parse.Node
			for _, a := range c.Args {
				if k := upToResponse(a, cut); k != nil {
					args = append(args, k)
				}
			}
			if len(args) == 0 {
				return nil
			}
			c.Args = args
			cmds = append(cmds, c)
		}
		if len(cmds) == 0 {
			return nil
		}
		n.Cmds = cmds
	case *parse.FieldNode:
		for _, id := range n.Ident {
			if id == "Response" {
				*cut = true
			}
		}
	}
	return n
}

func upToBranch(b *parse.BranchNode, cut *bool) {
	b.List = upToResponse(b.List, cut).(*parse.ListNode)
	if b.ElseList != nil {
		if l := upToResponse(b.ElseList, cut); l != nil {
			b.ElseList = l.(*parse.ListNode)
		} else {
			b.ElseList = nil
		}
	}
}

func collate(msgs []message) (string, []*message) {
	var system []string
	var out []*message
	for i := range msgs {
		m := msgs[i]
		if m.Role == "system" {
			system = append(system, m.Content)
		}
		if len(out) > 0 && out[len(out)-1].Role == m.Role && m.Role != "tool" {
			out[len(out)-1].Content += "\n\n" + m.Content
		} else {
			out = append(out, &m)
		}
	}
	return strings.Join(system, "\n\n"), out
}

func render(text string, msgs []message) (string, error) {
	t, vars, err := parseTemplate(text)
	if err != nil {
		return "", err
	}
	system, collated := collate(msgs)
	var b bytes.Buffer
	if vars["messages"] {
		err := t.Execute(&b, map[string]any{"System": system, "Messages": collated, "Tools": nil, "Response": "",
			"Think": false, "ThinkLevel": "", "IsThinkSet": false})
		return b.String(), err
	}
	values := func(system, prompt, response string) map[string]any {
		return map[string]any{"System": system, "Prompt": prompt, "Response": response, "Think": false,
			"ThinkLevel": "", "IsThinkSet": false}
	}
	var sys, prompt, response string
	turn := func() error {
		err := t.Execute(&b, values(sys, prompt, response))
		sys, prompt, response = "", "", ""
		return err
	}
	for _, m := range collated {
		switch m.Role {
		case "system":
			if prompt != "" || response != "" {
				if err := turn(); err != nil {
					return "", err
				}
			}
			sys = m.Content
		case "user":
			if response != "" {
				if err := turn(); err != nil {
					return "", err
				}
			}
			prompt = m.Content
		case "assistant":
			response = m.Content
		}
	}
	cut := false
	root := upToResponse(t.Tree.Root.CopyList(), &cut).(*parse.ListNode)
	last, err := template.New("").AddParseTree("", &parse.Tree{Root: root})
	if err != nil {
		return "", err
	}
	if err := last.Execute(&b, values(sys, prompt, response)); err != nil {
		return "", err
	}
	return b.String(), nil
}

func main() {
	var req request
	if err := json.NewDecoder(os.Stdin).Decode(&req); err != nil {
		fmt.Fprintln(os.Stderr, "reading the request:", err)
		os.Exit(2)
	}
	cmds, err := parseModelfile(req.Modelfile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "reading the Modelfile:", err)
		os.Exit(1)
	}
	tmpl, system := "{{ .Prompt }}", "" // ollama's default template
	stops := []string{}
	for _, c := range cmds {
		switch c.name {
		case "template":
			tmpl = c.value
		case "system":
			system = c.value
		case "parameter stop":
			stops = append(stops, c.value)
		}
	}
	prompts := []string{}
	for _, conv := range req.Conversations {
		msgs := conv.Messages
		if system != "" && !conv.NoModelfileSystem && (len(msgs) == 0 || msgs[0].Role != "system") {
			msgs = append([]message{{Role: "system", Content: system}}, msgs...)
		}
		text, err := render(tmpl, msgs)
		if err != nil {
			fmt.Fprintln(os.Stderr, "rendering the template:", err)
			os.Exit(1)
		}
		prompts = append(prompts, text)
	}
	out, _ := json.Marshal(map[string]any{"template": tmpl, "system": system, "stops": stops, "prompts": prompts})
	os.Stdout.Write(out)
}
