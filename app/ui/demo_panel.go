package ui

import (
	"encoding/json"
	"strconv"

	"github.com/maxence-charriere/go-app/v9/pkg/app"
)

// The demo panel's HTTP API, served by `formbridge demo` (server/demo).
const (
	demoToolsPath = "/demo/tools"
	demoRunPath   = "/demo/run"
)

// demoTool is one demo question the panel can fire.
type demoTool struct {
	Name        string `json:"name"`
	Title       string `json:"title"`
	Description string `json:"description"`
}

// demoResult is what a demo tool reported once answered.
type demoResult struct {
	Tool    string `json:"tool"`
	Title   string `json:"title"`
	Text    string `json:"text"`
	IsError bool   `json:"isError"`
}

// demoPanel is shown when the page is served by `formbridge demo`
// (FORMBRIDGE_DEMO=1): a button per demo question, so a person trying
// formbridge can send themselves each kind of request and see what the
// assistant was told.
type demoPanel struct {
	app.Compo

	Token string

	tools   []demoTool
	running map[string]int // tool name -> calls waiting for an answer
	results []demoResult   // newest first
	problem string
}

func (p *demoPanel) OnMount(ctx app.Context) {
	fetchText(ctx, "GET", demoToolsPath, p.Token, "", p.onTools)
}

// onTools receives the list of demo questions.
func (p *demoPanel) onTools(ctx app.Context, status int, text string) {
	var body struct {
		Tools []demoTool `json:"tools"`
	}
	if status != 200 || json.Unmarshal([]byte(text), &body) != nil {
		p.problem = "The demo questions could not be loaded."
		return
	}
	p.tools = body.Tools
}

// onRun fires one demo question; its result arrives once the person
// answered it in the widget above.
func (p *demoPanel) onRun(tool demoTool) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		if p.running == nil {
			p.running = map[string]int{}
		}
		p.running[tool.Name]++
		body, _ := json.Marshal(map[string]string{"tool": tool.Name})
		fetchText(ctx, "POST", demoRunPath, p.Token, string(body), func(ctx app.Context, status int, text string) {
			p.running[tool.Name]--
			var r demoResult
			if status != 200 || json.Unmarshal([]byte(text), &r) != nil {
				r = demoResult{Tool: tool.Name, Title: tool.Title, Text: "The demo question did not finish.", IsError: true}
			}
			p.results = append([]demoResult{r}, p.results...)
			if len(p.results) > maxNotices {
				p.results = p.results[:maxNotices]
			}
		})
	}
}

func (p *demoPanel) Render() app.UI {
	buttons := make([]app.UI, len(p.tools))
	for i, t := range p.tools {
		label := t.Title
		if n := p.running[t.Name]; n > 0 {
			label += " (" + strconv.Itoa(n) + " waiting)"
		}
		run := elem("button", "fb-demo-button",
			text("span", "fb-demo-title", label),
			text("span", "fb-demo-desc", t.Description),
		).
			Attr("type", "button").
			DataSet("demo-tool", t.Name).
			OnClick(p.onRun(t), t.Name)
		buttons[i] = el("li", "", run)
	}
	body := []app.UI{
		textElem("h2", "", "Demo: send yourself a question").ID("fb-demo-title"),
		text("p", "fb-hint", "Each button makes the demo assistant ask you something. Answer it above; what the assistant was told appears below."),
		textIf("p", "fb-problem", p.problem),
		el("ul", "fb-demo-tools", buttons...),
	}
	if len(p.results) > 0 {
		results := make([]app.UI, len(p.results))
		for i, r := range p.results {
			results[i] = el("li", "fb-demo-result",
				text("strong", "", r.Title+": "),
				serverText("span", "", r.Text),
			)
		}
		body = append(body,
			text("h3", "", "What the assistant was told"),
			elem("ul", "fb-demo-results", results...).Aria("live", "polite"),
		)
	}
	return elem("section", "fb-demo", body...).Aria("labelledby", "fb-demo-title")
}
