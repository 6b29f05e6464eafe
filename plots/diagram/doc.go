// Package diagram draws the message sequence charts and the timelines of sbsim's pages
// (report.html, a counterexample card) as SVG, from plain data: lanes and steps, tracks
// and marks. It imports nothing but the standard library, so that what draws a
// counterexample card (scenarios/shrink, which a user's tests import through
// scenarios/check) does not bring gonum/plot's modules with it.
package diagram
