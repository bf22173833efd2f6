// xtermbundle.js — xterm.js, its fit addon and its style sheet as a bundle of
// their own (ui/build.mjs: ui/xterm.js and ui/xterm.css), which terminal.js
// loads when the terminal is first opened: most visitors never open it.
import '@xterm/xterm/css/xterm.css';

export { Terminal } from '@xterm/xterm';
export { FitAddon } from '@xterm/addon-fit';
