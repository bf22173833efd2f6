// Package tutorials holds the playground's tutorials as data; its test replays every one against the core so none can drift.
//
// index.json lists the tutorials; each listed file is one tutorial of narrated
// steps with expectations. README.md describes the format. The player in ui/ runs
// the steps with ui/src/tutorial-runner.js, and so does the replay in
// tutorials_test.go, in Node (replay.mjs).
//
// exercises/ holds the checked exercises (LEARN-2) and tracks.json the start
// page's tracks (LEARN-3); exercises_test.go checks their shape and plays each
// exercise's solution and wrong attempts with the page's checker,
// ui/src/exercise.js, in the same Node process.
package tutorials
