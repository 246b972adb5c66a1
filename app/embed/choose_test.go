package embed

import "testing"

func TestChooseBridge(t *testing.T) {
	same := func(a, b string) bool { return a == b }
	const site, other = "wss://bridge.example.com/ws", "wss://evil.example.net/ws"
	tests := []struct {
		name                     string
		link, config, configProb string
		wantBridge, wantProblem  string
	}{
		{"config only", "", site, "", site, ""},
		{"link agrees with config", site, site, "", site, ""},
		{"link names another bridge", other, site, "", "", otherBridge},
		{"no config: the link decides", other, "", noBridge, other, ""},
		{"neither", "", "", noBridge, "", noBridge},
		{"broken config is not overridden by a link", other, "", badConfig, "", badConfig},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, p := ChooseBridge(tt.link, tt.config, tt.configProb, same)
			if b != tt.wantBridge || p != tt.wantProblem {
				t.Errorf("ChooseBridge(%q, %q, %q) = %q, %q; want %q, %q", tt.link, tt.config, tt.configProb, b, p, tt.wantBridge, tt.wantProblem)
			}
		})
	}
}
