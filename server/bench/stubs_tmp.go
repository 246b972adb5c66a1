package main

import "context"

func benchCapacity(ctx context.Context, c *config, r *report) error { return nil }
func benchBrowser(ctx context.Context, c *config, r *report) error { return nil }
func isChild() bool { return false }
func runChild() {}
