package client

import "testing"

func TestBridgeURL(t *testing.T) {
	tests := []struct {
		page, bridge, want string
	}{
		{"http://127.0.0.1:8080/#token=abc", "", "ws://127.0.0.1:8080/ws"},
		{"https://approve.example.com/some/page?x=1#token=abc", "", "wss://approve.example.com/ws"},
		{"https://widget.example.com/", "wss://bridge.example.com/ws", "wss://bridge.example.com/ws"},
		{"https://widget.example.com/", "wss://bridge.example.com", "wss://bridge.example.com/ws"},
		{"https://widget.example.com/", "https://bridge.example.com/prefix/ws", "wss://bridge.example.com/prefix/ws"},
		{"https://widget.example.com/", "http://user:pw@10.0.0.2:9000/", "ws://10.0.0.2:9000/ws"},
		{"https://widget.example.com/", " ws://bridge.example.com:8080 ", "ws://bridge.example.com:8080/ws"},
		{"https://widget.example.com/", "wss:///ws", ""},
		{"https://widget.example.com/", "javascript:alert(1)", ""},
		{"https://widget.example.com/", "ftp://bridge.example.com/", ""},
		{"file:///tmp/index.html", "", ""},
		{"", "", ""},
	}
	for _, tt := range tests {
		if got := BridgeURL(tt.page, tt.bridge); got != tt.want {
			t.Errorf("BridgeURL(%q, %q) = %q, want %q", tt.page, tt.bridge, got, tt.want)
		}
	}
}
