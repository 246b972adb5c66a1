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
		buttons[i] = app.Li().Body(
			app.Button().
				Type("button").
				Class("fb-demo-button").
				DataSet("demo-tool", t.Name).
				OnClick(p.onRun(t), t.Name).
				Body(
					app.Span().Class("fb-demo-title").Body(app.Text(label)),
					app.Span().Class("fb-demo-desc").Body(app.Text(t.Description)),
				),
		)
	}
	results := make([]app.UI, len(p.results))
	for i, r := range p.results {
		results[i] = app.Li().Class("fb-demo-result").Body(
			app.Strong().Body(app.Text(r.Title+": ")),
			app.Span().Dir("auto").Body(app.Text(r.Text)),
		)
	}
	return app.Section().Class("fb-demo").Aria("labelledby", "fb-demo-title").Body(
		app.H2().ID("fb-demo-title").Body(app.Text("Demo: send yourself a question")),
		app.P().Class("fb-hint").Body(app.Text("Each button makes the demo assistant ask you something. Answer it above; what the assistant was told appears below.")),
		app.If(p.problem != "", app.P().Class("fb-problem").Body(app.Text(p.problem))),
		app.Ul().Class("fb-demo-tools").Body(buttons...),
		app.If(len(results) > 0,
			app.H3().Body(app.Text("What the assistant was told")),
			app.Ul().Class("fb-demo-results").Aria("live", "polite").Body(results...),
		),
	)
}
