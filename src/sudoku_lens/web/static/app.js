// sudoku-lens web page: upload or snap a photo, fix misread digits, and a live camera mode.
// Plain JavaScript, no build step and no external resources.
"use strict";

const $ = (id) => document.getElementById(id);

const STATUS_TEXT = {
  "no solution": {
    title: "This grid has no solution.",
    detail: "A digit was probably misread: compare the grid with the photo and fix it.",
  },
  "several solutions": {
    title: "This grid has more than one solution.",
    detail:
      "A printed digit was probably missed or read as empty: type it in its cell, then press G " +
      "(or Make given) to make it a given.",
  },
};

let maxUploadBytes = 15 * 1024 * 1024;

// ---------------------------------------------------------------- messages

function showMessage(kind, title, detail = "") {
  const box = $("message");
  box.className = `message ${kind}`;
  box.replaceChildren();
  const strong = document.createElement("strong");
  strong.textContent = title;
  box.append(strong);
  if (detail) box.append(document.createTextNode(detail));
  box.hidden = false;
}

function hideMessage() {
  $("message").hidden = true;
}

async function errorText(response) {
  try {
    const body = await response.json();
    if (body && typeof body.error === "string") return body.error;
  } catch (_) {
    // not JSON: fall through to the status line
  }
  return `the server answered ${response.status} ${response.statusText}`.trim();
}

function capitalise(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}

// ---------------------------------------------------------------- grid editor

// Hints taken so far: the state after them (placed digits and crossed-out candidates), sent back
// with the photo so that each press of Hint gives the step after the last one. Once a hint is
// taken (`active`), no answer is shown until a new photo or "Undo my fixes": the person wants
// to go on alone, and edits to the grid keep the digits the hints placed.
const hints = { active: false, puzzle: null, placed: new Set(), eliminations: [], now: new Set() };

function resetHints() {
  hints.active = false;
  hints.puzzle = null;
  hints.placed = new Set();
  hints.eliminations = [];
  hints.now = new Set();
  $("hint-text").hidden = true;
}

// Answers stay hidden while checking only or hinting.
function hidingAnswers() {
  return editor.checkOnly || hints.active;
}

const editor = {
  file: null,
  photoUrl: "", // the photo as uploaded, shown when the edited grid has no answer to draw
  base: "", // the grid the server solved for the photo as uploaded (after automatic repair)
  cells: [], // the printed givens as shown now, 81 characters "0"-"9"
  baseEntries: "", // the person's handwritten entries read from the photo as uploaded
  entries: [], // the person's entries as shown now, "0" where none
  wrong: new Map(), // cell index -> the digit expected (null when not known), for wrong entries
  unsure: new Set(), // cells whose entry was read too unclearly to check
  baseCandidates: [], // the person's pencilled candidates read from the photo as uploaded
  candidates: [], // the candidates as shown now, 81 strings of sorted digits ("" where none)
  wrongCandidates: new Set(), // cells whose candidates leave out the answer
  unsureCandidates: new Set(), // cells whose candidates were read too unclearly to check
  notesMode: false, // digits typed pencil candidates in or out instead of writing an entry
  checkOnly: false, // mark wrong entries only: no answers in the photo or the grid
  corrected: new Set(),
  selected: -1, // the cell last focused: the one "Make given" / "Make entry" turns
  rotation: 0, // degrees the photo turns clockwise for its puzzle to stand upright
  solution: null,
  inputs: [],
  sequence: 0,
  controller: null,
  timer: 0,
};

function buildGrid() {
  const grid = $("grid");
  for (let i = 0; i < 81; i += 1) {
    const input = document.createElement("input");
    input.type = "text";
    input.inputMode = "numeric";
    input.autocomplete = "off";
    input.dataset.index = String(i);
    input.setAttribute("aria-label", `Row ${Math.floor(i / 9) + 1}, column ${(i % 9) + 1}`);
    input.addEventListener("keydown", onCellKey);
    input.addEventListener("input", onCellInput);
    input.addEventListener("paste", onCellPaste);
    // The grid is one stop of the Tab key (the cell last visited); arrows move within it.
    input.tabIndex = i === 0 ? 0 : -1;
    input.addEventListener("focus", () => {
      input.select();
      for (const other of editor.inputs) other.tabIndex = other === input ? 0 : -1;
      editor.selected = i;
      renderKindButton();
    });
    // A tap puts the caret where the finger was, after the focus: select the digit again, so
    // that a phone's keypad types over it and its delete key empties the cell.
    input.addEventListener("click", () => input.setSelectionRange(0, input.value.length));
    grid.append(input);
    editor.inputs.push(input);
  }
}

function moveFocus(index, dRow, dCol) {
  const row = (Math.floor(index / 9) + dRow + 9) % 9;
  const col = ((index % 9) + dCol + 9) % 9;
  editor.inputs[row * 9 + col].focus();
}

function onCellKey(event) {
  const index = Number(event.target.dataset.index);
  const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
  if (event.key in moves) {
    event.preventDefault();
    moveFocus(index, ...moves[event.key]);
  } else if (/^[1-9]$/.test(event.key)) {
    event.preventDefault();
    typeDigit(index, event.key);
  } else if (["Backspace", "Delete", "0", " "].includes(event.key)) {
    event.preventDefault();
    clearCell(index);
  } else if (event.key === "g" || event.key === "G") {
    event.preventDefault();
    toggleKind(index);
  } else if (event.key === "n" || event.key === "N") {
    event.preventDefault();
    setNotesMode(!editor.notesMode);
  } else if (event.key.length === 1 && !event.ctrlKey && !event.metaKey) {
    event.preventDefault(); // a letter or sign is no digit: the cell keeps what it holds
  }
}

function onCellInput(event) {
  // Virtual keyboards may not send usable key events: take the last digit typed (what was
  // inserted, wherever the caret stood beside the cell's old digit); an emptied cell is
  // cleared, and a letter or sign (a slip on a phone's keypad) changes nothing.
  const index = Number(event.target.dataset.index);
  const value = event.target.value;
  const digits = (event.data ?? value).replace(/[^0-9]/g, "");
  if (value && !digits) {
    renderGrid();
    return;
  }
  if (digits && /[1-9]/.test(digits[digits.length - 1])) typeDigit(index, digits[digits.length - 1]);
  else clearCell(index);
}

// A digit typed: in notes mode it pencils that candidate in or out of the cell, else it is the
// cell's digit (`setCell`).
function typeDigit(index, digit) {
  if (editor.notesMode) toggleCandidate(index, digit);
  else setCell(index, digit);
}

// Delete: empties the cell of its digit, or of its candidates where it holds only those.
function clearCell(index) {
  const shown = editor.cells[index] !== "0" || editor.entries[index] !== "0";
  if (!shown && editor.candidates[index]) setCandidates(index, "");
  else setCell(index, "0");
}

// Pencil `digit` in or out of the candidates of a cell that holds no given; a cell of
// candidates holds no entry, so an entry there goes.
function toggleCandidate(index, digit) {
  if (editor.cells[index] !== "0") {
    renderGrid();
    return;
  }
  const now = editor.candidates[index];
  const next = now.includes(digit) ? now.replace(digit, "") : now + digit;
  editor.entries[index] = "0";
  hints.placed.delete(index);
  setCandidates(index, next.split("").sort().join(""));
}

function setCandidates(index, digits) {
  editor.candidates[index] = digits;
  gridChanged(index);
}

// Notes mode (N, or the Notes button): digits typed are pencilled candidates.
function setNotesMode(on) {
  editor.notesMode = on;
  const button = $("notes-mode");
  button.setAttribute("aria-pressed", String(on));
  button.textContent = on ? "Notes: on" : "Notes: off";
  $("grid").classList.toggle("notes-mode", on);
  renderGrid();
}

// A pasted digit goes into the cell; a pasted puzzle (81 cells, 0 or . for empty, any
// separators) replaces the printed digits, keeping the person's entries in its empty cells.
function onCellPaste(event) {
  event.preventDefault();
  const text = (event.clipboardData || window.clipboardData).getData("text");
  const cells = text.replace(/[^0-9.]/g, "").replaceAll(".", "0");
  const index = Number(event.target.dataset.index);
  if (cells.length === 1) {
    setCell(index, cells);
  } else if (cells.length === 81) {
    editor.cells = cells.split("");
    editor.entries = editor.entries.map((d, i) => (cells[i] === "0" ? d : "0"));
    editor.candidates = editor.candidates.map((c, i) => (cells[i] === "0" ? c : ""));
    gridChanged(index);
  } else {
    showMessage("warn", "Nothing pasted.", "Paste one digit, or a whole puzzle of 81 cells.");
  }
}

function setCell(index, digit) {
  // A printed given is corrected as a given (a misread print stays print); a digit typed into
  // any other cell is the person's own entry, checked against the answer like those read.
  const cells = editor.cells[index] !== "0" ? editor.cells : editor.entries;
  const hinted = cells === editor.entries && hints.placed.has(index);
  if (cells[index] === digit && !(hinted && digit === "0")) {
    renderGrid();
    return;
  }
  cells[index] = digit;
  if (hinted && digit === "0") hints.placed.delete(index); // deleting a hint's digit clears it
  if (digit !== "0") editor.candidates[index] = ""; // a digit written takes the candidates' place
  gridChanged(index);
}

// Turn the cell's digit from a given into the person's entry or back (G, or the Make given /
// Make entry button): for print taken for handwriting, or a missed given typed in.
function toggleKind(index) {
  const given = editor.cells[index];
  const entry = editor.entries[index];
  if (given === "0" && entry === "0") return;
  editor.cells[index] = entry;
  editor.entries[index] = given;
  gridChanged(index);
}

// After a change to the cell `index`: forget what was known of the old grid and solve again.
// While hinting, the digits the hints placed stay; their crossed-out candidates are dropped, as
// an edited given may make them wrong.
function gridChanged(index) {
  editor.wrong.delete(index);
  editor.unsure.delete(index);
  editor.wrongCandidates.delete(index);
  editor.unsureCandidates.delete(index);
  editor.solution = null;
  hints.eliminations = [];
  hints.now = new Set();
  $("hint-text").hidden = true;
  renderGrid();
  // The picture and its caption follow the grid: until the edited grid is solved, neither may
  // still claim the old answer.
  $("answer-caption").textContent = "Solving the edited grid…";
  scheduleSolve();
}

// Show the photo as uploaded (no answer drawn) with `caption`, when the grid has no answer.
function showPhotoWithoutAnswer(caption) {
  if (editor.photoUrl) showPicture(editor.photoUrl);
  $("answer-caption").textContent = caption;
}

// Show a picture of the photo (the answer or a hint drawn in, or the photo alone) turned as
// the puzzle stands upright (`editor.rotation`, clockwise, from the reading): a page taken
// sideways is shown the right way up, as the grid beside it is.
let pictureToken = 0;
function showPicture(src) {
  const token = ++pictureToken;
  const turn = (((editor.rotation || 0) % 360) + 360) % 360;
  if (!turn) {
    $("answer-image").src = src;
    return;
  }
  const image = new Image();
  image.onload = () => {
    if (token !== pictureToken) return; // a newer picture came meanwhile
    const canvas = document.createElement("canvas");
    const sideways = turn === 90 || turn === 270;
    canvas.width = sideways ? image.naturalHeight : image.naturalWidth;
    canvas.height = sideways ? image.naturalWidth : image.naturalHeight;
    const ctx = canvas.getContext("2d");
    ctx.translate(canvas.width / 2, canvas.height / 2);
    ctx.rotate((turn * Math.PI) / 180);
    ctx.drawImage(image, -image.naturalWidth / 2, -image.naturalHeight / 2);
    $("answer-image").src = canvas.toDataURL("image/jpeg", 0.9);
  };
  image.onerror = () => {
    if (token === pictureToken) $("answer-image").src = src;
  };
  image.src = src;
}

// Nothing known to be the answer of the grid shown: no solution in the grid, no answer drawn,
// no rating.
function noAnswer(caption) {
  editor.solution = null;
  $("rating").hidden = true;
  renderGrid();
  showPhotoWithoutAnswer(caption);
}

function conflicts(cells) {
  const bad = new Set();
  const units = [];
  for (let k = 0; k < 9; k += 1) {
    const row = [];
    const col = [];
    const box = [];
    for (let j = 0; j < 9; j += 1) {
      row.push(k * 9 + j);
      col.push(j * 9 + k);
      box.push((Math.floor(k / 3) * 3 + Math.floor(j / 3)) * 9 + (k % 3) * 3 + (j % 3));
    }
    units.push(row, col, box);
  }
  for (const unit of units) {
    const seen = new Map();
    for (const i of unit) {
      const d = cells[i];
      if (d === "0") continue;
      if (seen.has(d)) {
        bad.add(i);
        bad.add(seen.get(d));
      } else {
        seen.set(d, i);
      }
    }
  }
  return bad;
}

function edited() {
  return (
    editor.cells.join("") !== editor.base ||
    editor.entries.join("") !== editor.baseEntries ||
    editor.candidates.join(",") !== editor.baseCandidates.join(",")
  );
}

function renderGrid() {
  const bad = conflicts(editor.cells);
  editor.inputs.forEach((input, i) => {
    const digit = editor.cells[i];
    const given = digit !== "0";
    const entry = !given && editor.entries[i] !== "0" ? editor.entries[i] : "";
    const hinted = !given && !entry && hints.placed.has(i) ? hints.puzzle[i] : "0";
    // A cell's candidates give way to its answer, as in the picture, unless the answers are
    // hidden, the person is pencilling (notes mode) or they leave the answer out or were read
    // too unclearly to check.
    const showNotes =
      hidingAnswers() ||
      !editor.solution ||
      editor.notesMode ||
      editor.wrongCandidates.has(i) ||
      editor.unsureCandidates.has(i);
    const notes = !given && !entry && hinted === "0" && showNotes ? editor.candidates[i] : "";
    input.value = given ? digit : entry || (hinted !== "0" ? hinted : notes);
    input.classList.toggle("notes", Boolean(notes));
    input.classList.toggle("many", notes.length > 4);
    input.classList.toggle("wrong-notes", Boolean(notes) && editor.wrongCandidates.has(i));
    input.classList.toggle("unsure-notes", Boolean(notes) && editor.unsureCandidates.has(i));
    input.classList.toggle("hinted", hinted !== "0");
    input.classList.toggle("hint-now", hints.now.has(i));
    input.classList.toggle("handwritten", Boolean(entry));
    input.classList.toggle("wrong", Boolean(entry) && editor.wrong.has(i));
    input.classList.toggle("unsure", Boolean(entry) && editor.unsure.has(i));
    const expected = editor.checkOnly ? null : editor.wrong.get(i);
    input.title = entry && expected ? `should be ${expected}` : "";
    // While hinting or checking only, the answers stay hidden: the person wants to go on alone.
    const showAnswers = editor.solution && !hidingAnswers();
    const answer = !given && !entry && !notes && showAnswers ? editor.solution[i] : "";
    input.placeholder = answer;
    const editedCell =
      digit !== editor.base[i] ||
      editor.entries[i] !== editor.baseEntries[i] ||
      editor.candidates[i] !== editor.baseCandidates[i];
    input.classList.toggle("edited", editedCell && !entry);
    input.classList.toggle("corrected", editor.corrected.has(i) && digit === editor.base[i]);
    input.classList.toggle("conflict", bad.has(i));
    const where = `Row ${Math.floor(i / 9) + 1}, column ${(i % 9) + 1}`;
    let what = given ? `given ${digit}` : answer ? `empty, answer ${answer}` : "empty";
    if (entry) {
      what = `your entry ${entry}`;
      if (editor.wrong.has(i)) what += expected ? `, wrong: should be ${expected}` : ", wrong";
      if (editor.unsure.has(i)) what += ", too unclear to check";
    } else if (notes) {
      what = `your candidates ${notes.split("").join(" ")}`;
      if (editor.wrongCandidates.has(i)) what += ", they leave out the answer";
      if (editor.unsureCandidates.has(i)) what += ", too unclear to check";
    }
    input.setAttribute("aria-label", `${where}: ${what}`);
  });
  $("undo").disabled = !edited() && !hints.active; // it takes the hints back too
  renderKindButton();
}

// The Make given / Make entry button names what it would do to the selected cell.
function renderKindButton() {
  const button = $("kind-toggle");
  const i = editor.selected;
  const given = i >= 0 && editor.cells[i] !== "0";
  const entry = i >= 0 && !given && editor.entries[i] !== "0";
  button.disabled = !given && !entry;
  button.textContent = given ? "Make entry" : "Make given";
  button.setAttribute(
    "aria-label",
    given || entry
      ? `Make row ${Math.floor(i / 9) + 1}, column ${(i % 9) + 1} ${given ? "your entry" : "a given"}`
      : "Make given or entry: select a cell that holds a digit first",
  );
}

function scheduleSolve() {
  clearTimeout(editor.timer);
  editor.timer = setTimeout(() => solvePhoto(edited()), 150);
}

// ---------------------------------------------------------------- photo mode

function setBusy(busy) {
  $("answer-frame").setAttribute("aria-busy", String(busy));
  $("grid").classList.toggle("busy", busy);
}

async function loadPhoto(file) {
  if (!file) return;
  // Bringing a large photo down takes a moment on a phone, sending it seconds on mobile data:
  // the page says at once that it is at work.
  showMessage("busy", "Reading the photo…");
  const sent = await shrunk(file);
  if (sent.size > maxUploadBytes) {
    showMessage("error", "This photo is too large.", `The limit is ${maxUploadBytes / 2 ** 20} MB.`);
    return;
  }
  editor.file = sent;
  if (editor.photoUrl) URL.revokeObjectURL(editor.photoUrl);
  editor.photoUrl = URL.createObjectURL(file);
  editor.base = "";
  editor.rotation = 0;
  editor.selected = -1;
  resetHints();
  renderKindButton();
  await solvePhoto(false);
}

const SEND_SIDE = 2000;
// The photo is sent again with every edit and hint: a phone's 12-megapixel photo is brought
// to SEND_SIDE pixels on its long side first (a grid there still has cells of some 100
// pixels, three times what the reader cuts them to), which on mobile data takes seconds
// instead of a minute. A photo the browser cannot decode is sent as it is.
async function shrunk(file) {
  let bitmap;
  try {
    bitmap = await createImageBitmap(file);
  } catch (_) {
    return file;
  }
  const scale = SEND_SIDE / Math.max(bitmap.width, bitmap.height);
  if (scale >= 1 && file.size <= 2 ** 21) {
    bitmap.close();
    return file;
  }
  const canvas = document.createElement("canvas");
  canvas.width = Math.round(bitmap.width * Math.min(1, scale));
  canvas.height = Math.round(bitmap.height * Math.min(1, scale));
  canvas.getContext("2d").drawImage(bitmap, 0, 0, canvas.width, canvas.height);
  bitmap.close(); // the decoded photo's memory goes at once, not at the next collection
  const blob = await new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", 0.92));
  if (!blob || blob.size >= file.size) return file;
  return new File([blob], (file.name || "photo").replace(/\.[^.]*$/, "") + ".jpg", {
    type: "image/jpeg",
  });
}

// Solve the current photo as read, or with the grid and entries as edited (`withEdits`).
async function solvePhoto(withEdits) {
  if (!editor.file) return;
  if (editor.controller) editor.controller.abort();
  const controller = new AbortController();
  editor.controller = controller;
  const sequence = ++editor.sequence;
  const form = new FormData();
  form.append("file", editor.file, editor.file.name || "photo.jpg");
  const grid = withEdits ? editor.cells.join("") : null;
  if (withEdits) {
    form.append("grid", grid);
    form.append("entries", editor.entries.join(""));
    form.append("candidates", JSON.stringify(editor.candidates));
  }
  if (hidingAnswers()) form.append("check_only", "true");
  setBusy(true);
  let response;
  try {
    response = await fetch("/api/solve", { method: "POST", body: form, signal: controller.signal });
  } catch (error) {
    if (error.name !== "AbortError") {
      setBusy(false);
      if (grid !== null) noAnswer("Not solved: the server could not be reached.");
      showMessage("error", "The server could not be reached.", "Is sudoku-lens serve still running?");
    }
    return;
  }
  if (sequence !== editor.sequence) return;
  setBusy(false);
  if (!response.ok) {
    const text = capitalise(await errorText(response));
    if (sequence !== editor.sequence) return;
    if (grid === null) {
      $("result").hidden = true;
      $("drop").classList.remove("compact"); // the drop area says again what it takes
      const hint =
        response.status === 422 && /grid/i.test(text)
          ? " Try a closer, sharper shot with the whole grid in view."
          : "";
      showMessage("error", "No answer for this photo.", `${text}.${hint}`);
    } else {
      noAnswer("Not solved: the edited grid breaks the rules.");
      showMessage("error", "This grid breaks the rules.", `${text}.`);
    }
    return;
  }
  let body;
  try {
    body = await response.json();
  } catch (error) {
    // A newer solve or a hint aborted this one while its answer was still arriving.
    if (error.name === "AbortError") return;
    throw error;
  }
  if (sequence !== editor.sequence) return;
  showResult(body, grid === null);
}

function showResult(body, fresh) {
  if (fresh) {
    editor.base = body.grid;
    // An entry checked right (neither wrong nor unsure) shows the solution's digit: when the
    // reader took the person's right digit for another one, the digit read would stand in the
    // grid as an unmarked duplicate under "your entries are all right".
    const marked = new Set(
      [...body.wrong_entries, ...body.unsure_entries].map((e) => cellIndex(e.cell)),
    );
    editor.baseEntries = Array.from(body.kinds, (kind, i) => {
      if (kind !== "h") return "0";
      return body.solution && !marked.has(i) ? body.solution[i] : body.read[i];
    }).join("");
    editor.entries = editor.baseEntries.split("");
    editor.baseCandidates = body.candidates.slice();
    editor.candidates = body.candidates.slice();
    editor.corrected = new Set(body.corrected_cells.map(cellIndex));
    editor.rotation = body.rotation || 0;
  }
  editor.cells = body.grid.split("");
  editor.solution = body.solution;
  editor.wrong = new Map(body.wrong_entries.map((e) => [cellIndex(e.cell), e.expected]));
  editor.unsure = new Set(body.unsure_entries.map((e) => cellIndex(e.cell)));
  editor.wrongCandidates = new Set(body.wrong_candidates.map((e) => cellIndex(e.cell)));
  editor.unsureCandidates = new Set(body.unsure_candidates.map(cellIndex));
  showPicture(body.image);
  $("result").hidden = false;
  $("drop").classList.add("compact");
  renderGrid();

  const seconds = `${body.seconds.toFixed(2)} s`;
  const note = STATUS_TEXT[body.status];
  $("rating").hidden = true;
  if (note) {
    $("answer-caption").textContent = `Not solved (${seconds}).`;
    showMessage("error", note.title, note.detail);
    return;
  }
  const wrong = body.wrong_entries.length;
  const unsure = body.unsure_entries.length;
  const hiding = hidingAnswers();
  $("answer-caption").textContent = hiding ? `Checked in ${seconds}.` : `Solved in ${seconds}.`;
  showRating(body.grid);
  const edits =
    editor.cells.filter((d, i) => d !== editor.base[i]).length +
    editor.entries.filter((d, i) => d !== editor.baseEntries[i]).length +
    editor.candidates.filter((d, i) => d !== editor.baseCandidates[i]).length;
  const entries = editor.entries.filter((d, i) => d !== "0" && editor.cells[i] === "0").length;
  const wrongNotes = editor.wrongCandidates.size;
  const unsureNotes = editor.unsureCandidates.size;
  const notesText = wrongNotes ? candidatesText(wrongNotes) : "";
  if (body.givens_doubted) {
    showMessage(
      "warn",
      `${unsure} of your entries disagree with the answer to the printed digits as read.`,
      "So many that a printed digit is more likely misread than they are all wrong: " +
        "check the printed digits against the photo and correct them in the grid. " +
        "The entries are outlined in orange.",
    );
  } else if (wrong) {
    const detail = hiding
      ? "They are ringed in red in the photo and struck through in the grid."
      : "They are ringed in red in the photo, with the right digit beside them.";
    const more = notesText ? ` ${notesText} framed in purple.` : "";
    showMessage(
      "error",
      `${wrong} of your entries ${wrong > 1 ? "are" : "is"} wrong.`,
      `${detail}${more}`,
    );
  } else if (wrongNotes) {
    showMessage(
      "error",
      `${notesText}.`,
      "They are framed in purple in the photo and in the grid: the answer is not among them.",
    );
  } else if (unsure || unsureNotes) {
    const what = [
      unsure ? `${unsure} of your entries` : "",
      unsureNotes ? `${unsureNotes} ${unsureNotes > 1 ? "cells" : "cell"} of your candidates` : "",
    ].filter(Boolean);
    showMessage(
      "warn",
      `${what.join(" and ")} could not be read clearly enough to check.`,
      "They are outlined in orange: check them against the photo, or type them in.",
    );
  } else if (hiding && entries) {
    showMessage("ok", "Your entries are all right.", "Keep going!");
  } else if (hiding) {
    showMessage("ok", "Nothing to check yet.", "Type your own digits into the grid to check them.");
  } else if (edits) {
    showMessage("ok", "Solved with your fixes.", `${edits} cell${edits > 1 ? "s" : ""} changed.`);
  } else if (editor.corrected.size) {
    const n = editor.corrected.size;
    showMessage(
      "warn",
      `Solved after correcting ${n} digit${n > 1 ? "s" : ""} that looked misread.`,
      "They are marked in orange: check them against the photo.",
    );
  } else {
    const missing = editor.cells.some((d, i) => d === "0" && editor.entries[i] === "0");
    const detail = missing
      ? "The missing digits are drawn into the photo."
      : entries
        ? "The grid is full and your entries are all right."
        : "The grid is full.";
    showMessage("ok", "Solved.", detail);
  }
}

// ---------------------------------------------------------------- rating and hints

async function showRating(puzzle) {
  const sequence = editor.sequence;
  let body;
  try {
    const response = await fetch("/api/rate", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ puzzle }),
    });
    if (!response.ok) return;
    body = await response.json();
  } catch (_) {
    return;
  }
  if (sequence !== editor.sequence) return;
  const rating = $("rating");
  rating.textContent =
    body.rating === null
      ? body.solved
        ? "Difficulty: nothing to rate (the grid is already solved)."
        : "Difficulty: not rated (the techniques stop before the end)."
      : `Difficulty: ${capitalise(body.level)}, ${body.rating.toFixed(1)} on the Sudoku Explainer scale (hardest step: ${body.hardest.replaceAll("-", " ")}).`;
  rating.dataset.rating = body.rating === null ? "" : String(body.rating);
  rating.hidden = false;
}

// "2 cells of your candidates leave out the answer", for `count` such cells.
function candidatesText(count) {
  return count > 1
    ? `${count} cells of your candidates leave out the answer`
    : "1 cell of your candidates leaves out the answer";
}

function cellIndex(name) {
  return (Number(name[1]) - 1) * 9 + Number(name[3]) - 1;
}

// The person's entries as the grid shows them, for a hint: their own (read, typed in or
// corrected; a cleared one is 0) where there is one, else the digit of a hint taken. Wrong and
// unsure entries are sent too: the server leaves them out of the step and names them in
// `wrong_entries` and `unsure_entries` (an entry sent as read keeps the reading's certainty).
function hintEntries() {
  return editor.cells
    .map((given, i) => {
      if (given !== "0") return "0";
      if (editor.entries[i] !== "0") return editor.entries[i];
      return hints.placed.has(i) ? hints.puzzle[i] : "0";
    })
    .join("");
}

// Ask for the next step from the grid as shown (givens, entries and the hints taken so far);
// draw it and put it in the grid.
async function nextHint() {
  if (!editor.file) return;
  const form = new FormData();
  form.append("file", editor.file, editor.file.name || "photo.jpg");
  form.append("grid", editor.cells.join(""));
  form.append("entries", hintEntries());
  form.append("candidates", JSON.stringify(editor.candidates));
  if (hints.eliminations.length) form.append("eliminations", hints.eliminations.join(" "));
  // The hint answers for the grid as shown: a solve still waiting for the last edit is dropped.
  clearTimeout(editor.timer);
  if (editor.controller) editor.controller.abort();
  const sequence = ++editor.sequence;
  setBusy(true);
  const focused = document.activeElement === $("hint");
  $("hint").disabled = true;
  let response;
  try {
    response = await fetch("/api/hint", { method: "POST", body: form });
  } catch (_) {
    noAnswer("Not solved: the server could not be reached.");
    showMessage("error", "The server could not be reached.", "Is sudoku-lens serve still running?");
    return;
  } finally {
    setBusy(false);
    $("hint").disabled = false;
    if (focused) $("hint").focus(); // Enter again gives the next step
  }
  if (sequence !== editor.sequence) return;
  if (!response.ok) {
    const text = capitalise(await errorText(response));
    if (sequence !== editor.sequence) return;
    // The solve this hint replaced never came: the picture must not keep an older answer.
    noAnswer("Not solved: no answer for this grid.");
    const several = /several solutions/i.test(text) ? STATUS_TEXT["several solutions"] : null;
    if (several) showMessage("error", several.title, several.detail);
    else showMessage("error", "No hint for this grid.", `${text}.`);
    return;
  }
  const body = await response.json();
  hints.active = true;
  const text = $("hint-text");
  text.replaceChildren();
  const replaced = [];
  if (body.technique === null) {
    text.textContent = "No further step: the grid is full.";
    hints.now = new Set();
  } else {
    const label = document.createElement("span");
    label.className = "technique";
    label.textContent = body.technique.replaceAll("-", " ");
    text.append(label, document.createTextNode(body.explanation));
    hints.now = new Set(body.placements.map((p) => cellIndex(p)));
    for (const i of hints.now) hints.placed.add(i);
    // A digit the hint places in the cell of a wrong or unsure entry replaces that entry; a
    // wrong one is named, so that the person learns of the mistake.
    const sentWrong = new Set(body.wrong_entries.map((e) => cellIndex(e.cell)));
    for (const i of hints.now) {
      if (sentWrong.has(i) && editor.entries[i] !== "0") {
        replaced.push(`your ${editor.entries[i]} in r${Math.floor(i / 9) + 1}c${(i % 9) + 1}`);
      }
      editor.entries[i] = "0";
    }
  }
  text.hidden = false;
  text.dataset.technique = body.technique || "";
  hints.puzzle = body.after.puzzle;
  hints.eliminations = body.after.eliminations;
  // The marks follow the hint's check of the entries sent (the last solve may be older).
  const marked = (entries) => entries.map((e) => cellIndex(e.cell)).filter((i) => !hints.now.has(i));
  editor.wrong = new Map(
    marked(body.wrong_entries).map((i) => [i, editor.solution ? editor.solution[i] : null]),
  );
  editor.unsure = new Set(marked(body.unsure_entries));
  editor.wrongCandidates = new Set(marked(body.wrong_candidates));
  editor.unsureCandidates = new Set(
    (body.unsure_candidates || []).map(cellIndex).filter((i) => !hints.now.has(i)),
  );
  showPicture(body.image);
  $("answer-caption").textContent =
    body.technique === null ? "Nothing more to hint." : "The next step, drawn into the photo.";
  const wrong = editor.wrong.size;
  const more = `${wrong} of your entries ${wrong > 1 ? "are" : "is"} wrong`;
  if (replaced.length) {
    showMessage(
      "error",
      `${capitalise(replaced.join(" and "))} ${replaced.length > 1 ? "were" : "was"} wrong.`,
      `The hint puts the right digit there.${wrong ? ` ${more}, struck through in the grid.` : ""}`,
    );
  } else if (wrong) {
    showMessage(
      "error",
      `${more}.`,
      "They are struck through in the grid; the hint goes on from your right entries.",
    );
  } else if (body.technique === null) {
    showMessage("ok", "Solved: every cell is filled.", "Well done! Choose another photo for a new puzzle.");
  } else {
    hideMessage();
  }
  renderGrid();
  // On a narrow screen the Hint button lies far below the photo: bring the step into view.
  const box = text.getBoundingClientRect();
  if (box.top < 0 || box.bottom > window.innerHeight) text.scrollIntoView({ block: "end" });
}

function setUpPhotoMode() {
  buildGrid();
  for (const id of ["file-choose", "file-take"]) {
    $(id).addEventListener("change", (event) => {
      loadPhoto(event.target.files[0]);
      event.target.value = "";
    });
  }
  const drop = $("drop");
  for (const name of ["dragenter", "dragover"]) {
    drop.addEventListener(name, (event) => {
      event.preventDefault();
      drop.classList.add("dragging");
    });
  }
  for (const name of ["dragleave", "drop"]) {
    drop.addEventListener(name, () => drop.classList.remove("dragging"));
  }
  drop.addEventListener("drop", (event) => {
    event.preventDefault();
    const file = event.dataTransfer.files[0];
    if (file) loadPhoto(file);
  });
  // Dropping a photo anywhere else on the page must not navigate away from it.
  window.addEventListener("dragover", (event) => event.preventDefault());
  window.addEventListener("drop", (event) => event.preventDefault());
  $("hint").addEventListener("click", nextHint);
  $("notes-mode").addEventListener("click", () => {
    setNotesMode(!editor.notesMode);
    if (editor.selected >= 0) editor.inputs[editor.selected].focus();
  });
  $("kind-toggle").addEventListener("click", () => {
    if (editor.selected < 0) return;
    toggleKind(editor.selected);
    editor.inputs[editor.selected].focus();
  });
  $("undo").addEventListener("click", () => {
    const focused = document.activeElement === $("undo");
    resetHints();
    editor.cells = editor.base.split("");
    editor.entries = editor.baseEntries.split("");
    editor.candidates = editor.baseCandidates.slice();
    renderGrid();
    solvePhoto(false);
    if (focused && $("undo").disabled) $("hint").focus(); // keep the keyboard in the controls
  });
  $("check-only").addEventListener("change", (event) => {
    editor.checkOnly = event.target.checked;
    renderGrid();
    // While hinting the photo keeps showing the last step, and no answer either way.
    if (editor.base && !hints.active) solvePhoto(edited());
  });
  $("copy").addEventListener("click", async () => {
    const text = editor.cells.join("");
    try {
      await navigator.clipboard.writeText(text);
      $("copy").textContent = "Copied";
    } catch (_) {
      window.prompt("The puzzle as 81 digits:", text);
    }
    setTimeout(() => ($("copy").textContent = "Copy puzzle"), 1500);
  });
}

// ---------------------------------------------------------------- camera mode

const FRAME_WIDTH = 640;
const CAMERA_TEXT = {
  searching: "Point the camera at a Sudoku.",
  reading: "Grid found: hold still while it is read…",
  solved: "Solved: the answer is on the picture.",
  unsolvable: "This grid cannot be solved as read: try the photo mode to fix digits.",
};

// "Edit this frame" opens the camera's picture in the photo mode, which is only of use once the
// last frame read holds a grid; until then the button says why it cannot be pressed. It opens
// that frame, at the camera's full size, not the video as it is when pressed: the answer comes
// a frame or more after the picture was taken, and the page may have moved out of view since.
const SNAP_TEXT = { ready: "Edit this frame", waiting: "No grid to edit yet" };

const camera = {
  stream: null,
  running: false,
  session: "",
  frame: document.createElement("canvas"), // the frame sent, brought down to FRAME_WIDTH
  taken: document.createElement("canvas"), // the same frame at the camera's size
  withGrid: null, // the canvas of the last frame read found to hold a grid, for "Edit this frame"
  times: [],
};

function newSessionId() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function setSnapReady(ready) {
  const snap = $("camera-snap");
  snap.disabled = !ready;
  snap.textContent = ready || !camera.running ? SNAP_TEXT.ready : SNAP_TEXT.waiting;
}

function setCameraState(text, kind = "") {
  const state = $("camera-state");
  state.textContent = text;
  state.className = `camera-state ${kind}`;
}

// Why the camera cannot start, and what to do instead: the page names each case the browser
// tells apart (refused, missing, busy, not a secure page) rather than one vague failure.
const CAMERA_PROBLEM = {
  insecure:
    "The camera works only on a secure page, and this one is plain http:// on a network " +
    "address. On the computer, run sudoku-lens serve --lan and open the https:// address it " +
    "prints (or scan its QR code). Take a photo on the Photo tab works here as it is.",
  unsupported:
    "This browser gives no access to a camera. Use Take a photo on the Photo tab instead.",
  denied:
    "The camera was refused. To allow it, tap the icon beside the address (a lock or sliders), " +
    "open Permissions or Site settings, set Camera to Allow, and press Start camera again; on " +
    "an iPhone: Settings, Safari, Camera. Or use Take a photo on the Photo tab.",
  missing: "No camera was found on this device. Use Choose a photo on the Photo tab instead.",
  busy:
    "The camera is in use by another app or tab. Close it there and press Start camera " +
    "again, or use the Photo tab.",
};

function cameraProblem(error) {
  if (error.name === "NotAllowedError" || error.name === "SecurityError") return "denied";
  if (error.name === "NotFoundError" || error.name === "OverconstrainedError") return "missing";
  if (error.name === "NotReadableError" || error.name === "AbortError") return "busy";
  return "";
}

function showCameraProblem(problem) {
  setCameraState(CAMERA_PROBLEM[problem], "error");
  $("camera-state").dataset.problem = problem;
}

async function startCamera() {
  delete $("camera-state").dataset.problem;
  if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
    showCameraProblem(window.isSecureContext ? "unsupported" : "insecure");
    return;
  }
  try {
    camera.stream = await navigator.mediaDevices.getUserMedia({
      video: { facingMode: "environment", width: { ideal: 1280 }, height: { ideal: 720 } },
      audio: false,
    });
  } catch (error) {
    const problem = cameraProblem(error);
    if (problem) showCameraProblem(problem);
    else {
      setCameraState(
        `The camera did not start: ${error.message || error.name}. Use the Photo tab instead.`,
        "error",
      );
    }
    return;
  }
  const video = $("camera-video");
  video.srcObject = camera.stream;
  await video.play();
  camera.running = true;
  camera.session = newSessionId();
  camera.times = [];
  $("camera-idle").hidden = true;
  $("camera-toggle").textContent = "Stop camera";
  setSnapReady(false);
  setCameraState(CAMERA_TEXT.searching);
  sendFrames();
}

function stopCamera() {
  camera.running = false;
  if (camera.stream) camera.stream.getTracks().forEach((track) => track.stop());
  camera.stream = null;
  $("camera-video").srcObject = null;
  camera.withGrid = null; // a new session waits for a frame of its own with a grid
  const view = $("camera-view"); // the last frame drawn would look live under the idle text
  view.getContext("2d").clearRect(0, 0, view.width, view.height);
  $("camera-idle").hidden = false;
  $("camera-toggle").textContent = "Start camera";
  setSnapReady(false);
  $("camera-fps").textContent = "";
  setCameraState("");
}

// Send downscaled JPEG frames one after another; each answer updates the overlay.
async function sendFrames() {
  const video = $("camera-video");
  const frame = camera.frame;
  while (camera.running) {
    if (!video.videoWidth) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      continue;
    }
    const taken = camera.taken;
    taken.width = video.videoWidth;
    taken.height = video.videoHeight;
    taken.getContext("2d").drawImage(video, 0, 0);
    const scale = Math.min(1, FRAME_WIDTH / taken.width);
    frame.width = Math.round(taken.width * scale);
    frame.height = Math.round(taken.height * scale);
    frame.getContext("2d").drawImage(taken, 0, 0, frame.width, frame.height);
    const takenAt = (performance.now() / 1000).toFixed(3);
    const blob = await new Promise((resolve) => frame.toBlob(resolve, "image/jpeg", 0.75));
    let result = null;
    try {
      const response = await fetch(`/api/live-frame?session=${camera.session}&t=${takenAt}`, {
        method: "POST",
        headers: { "Content-Type": "image/jpeg" },
        body: blob,
      });
      if (!response.ok) throw new Error(await errorText(response));
      result = await response.json();
    } catch (error) {
      if (!camera.running) return;
      setCameraState(`${capitalise(error.message)}; retrying…`, "error");
      await new Promise((resolve) => setTimeout(resolve, 500));
      continue;
    }
    if (!camera.running) return;
    paintResult(frame, result);
    const now = performance.now();
    camera.times.push(now);
    while (camera.times.length && now - camera.times[0] > 2000) camera.times.shift();
    if (camera.times.length > 1) {
      const fps = ((camera.times.length - 1) * 1000) / (now - camera.times[0]);
      $("camera-fps").textContent = `${fps.toFixed(1)} fps`;
      $("camera-fps").dataset.fps = fps.toFixed(2);
    }
    setCameraState(result.message || CAMERA_TEXT[result.state] || result.state, result.state);
    if (result.corners) {
      const spare = camera.withGrid || document.createElement("canvas");
      camera.withGrid = camera.taken;
      camera.taken = spare;
    }
    setSnapReady(Boolean(result.corners));
    $("camera-view").dataset.state = result.state;
    $("camera-view").dataset.solution = result.solution || "";
  }
}

// Show the frame that was sent with the answer found in it, so the digits sit exactly on the
// grid even while the camera moves (drawing over the live video would lag behind it).
function paintResult(frame, result) {
  const view = $("camera-view");
  if (view.width !== frame.width || view.height !== frame.height) {
    view.width = frame.width;
    view.height = frame.height;
  }
  const ctx = view.getContext("2d");
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.drawImage(frame, 0, 0);
  if (result.corners) drawOverlay(ctx, result, frame.width / result.width);
}

// The homography that maps grid coordinates (0..9, 0..9) onto the four corners (TL, TR, BR, BL).
function gridHomography(corners) {
  const src = [[0, 0], [9, 0], [9, 9], [0, 9]];
  const a = [];
  const b = [];
  for (let k = 0; k < 4; k += 1) {
    const [x, y] = src[k];
    const [u, v] = corners[k];
    a.push([x, y, 1, 0, 0, 0, -u * x, -u * y]);
    b.push(u);
    a.push([0, 0, 0, x, y, 1, -v * x, -v * y]);
    b.push(v);
  }
  const h = solveLinear(a, b);
  return (x, y) => {
    const w = h[6] * x + h[7] * y + 1;
    return [(h[0] * x + h[1] * y + h[2]) / w, (h[3] * x + h[4] * y + h[5]) / w];
  };
}

function solveLinear(a, b) {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]]);
  for (let col = 0; col < n; col += 1) {
    let pivot = col;
    for (let r = col + 1; r < n; r += 1) if (Math.abs(m[r][col]) > Math.abs(m[pivot][col])) pivot = r;
    [m[col], m[pivot]] = [m[pivot], m[col]];
    for (let r = 0; r < n; r += 1) {
      if (r === col || m[col][col] === 0) continue;
      const f = m[r][col] / m[col][col];
      for (let c = col; c <= n; c += 1) m[r][c] -= f * m[col][c];
    }
  }
  return m.map((row, i) => row[n] / row[i]);
}

function drawOverlay(ctx, result, scale) {
  const corners = result.corners.map(([x, y]) => [x * scale, y * scale]);
  const solved = result.state === "solved" && result.solution && result.puzzle;
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.lineWidth = Math.max(2, 3 * scale);
  ctx.strokeStyle = solved ? "rgba(34, 197, 94, 0.9)" : "rgba(250, 204, 21, 0.9)";
  ctx.beginPath();
  corners.forEach(([x, y], k) => (k ? ctx.lineTo(x, y) : ctx.moveTo(x, y)));
  ctx.closePath();
  ctx.stroke();
  if (!solved) return;
  const map = gridHomography(corners);
  ctx.textAlign = "center";
  ctx.textBaseline = "middle";
  ctx.font = "bold 72px system-ui, sans-serif";
  ctx.lineJoin = "round";
  const wrong = new Map((result.wrong_entries || []).map((e) => [cellIndex(e.cell), e.expected]));
  const unsure = new Set((result.unsure_entries || []).map((e) => cellIndex(e.cell)));
  const wrongNotes = new Set((result.wrong_candidates || []).map((e) => cellIndex(e.cell)));
  const unsureNotes = new Set((result.unsure_candidates || []).map(cellIndex));
  for (let i = 0; i < 81; i += 1) {
    const entry = result.entries && result.entries[i] !== "0";
    if (result.puzzle[i] !== "0" || (entry && !wrong.has(i) && !unsure.has(i))) continue;
    const r = Math.floor(i / 9);
    const c = i % 9;
    const [cx, cy] = map(c + 0.5, r + 0.5);
    const [rx, ry] = map(c + 1, r + 0.5);
    const [lx, ly] = map(c, r + 0.5);
    const [bx, by] = map(c + 0.5, r + 1);
    const [tx, ty] = map(c + 0.5, r);
    // One cell is 100 units wide in this local frame, so the 72 px font fills about 3/4 of it.
    ctx.setTransform((rx - lx) / 100, (ry - ly) / 100, (bx - tx) / 100, (by - ty) / 100, cx, cy);
    if (wrongNotes.has(i) || unsureNotes.has(i)) {
      // Candidates that leave out the answer: a purple frame along the cell's lines; orange for
      // those read too unclearly to check.
      ctx.lineWidth = 5;
      ctx.strokeStyle = wrongNotes.has(i) ? "#a01eaa" : "#f08200";
      ctx.beginPath();
      ctx.roundRect(-42, -42, 84, 84, 12);
      ctx.stroke();
    }
    if (entry) {
      // A wrong entry: a red ring around the person's digit, the right digit small beside it;
      // one read too unclearly to check: an orange ring and a question mark.
      const colour = wrong.has(i) ? "#d7261e" : "#f08200";
      ctx.lineWidth = 6;
      ctx.strokeStyle = colour;
      ctx.beginPath();
      ctx.arc(0, 0, 37, 0, 2 * Math.PI);
      ctx.stroke();
      ctx.font = "bold 30px system-ui, sans-serif";
      ctx.fillStyle = colour;
      ctx.fillText(wrong.has(i) ? String(wrong.get(i)) : "?", 36, -34);
      ctx.font = "bold 72px system-ui, sans-serif";
      continue;
    }
    ctx.lineWidth = 14;
    ctx.strokeStyle = "rgba(255, 255, 255, 0.85)";
    ctx.strokeText(result.solution[i], 0, 4);
    ctx.fillStyle = "#0f7b3d";
    ctx.fillText(result.solution[i], 0, 4);
  }
  ctx.setTransform(1, 0, 0, 1, 0, 0);
}

// Open the last frame read that holds a grid (the one the button was enabled for) in the
// photo mode.
function snapFrame() {
  const canvas = camera.withGrid;
  if (!canvas) return;
  canvas.toBlob(
    (blob) => {
      stopCamera();
      selectTab("photo");
      loadPhoto(new File([blob], "camera.jpg", { type: "image/jpeg" }));
    },
    "image/jpeg",
    0.92,
  );
}

// ---------------------------------------------------------------- tabs and start-up

function selectTab(name) {
  for (const tab of ["photo", "camera"]) {
    const on = tab === name;
    const button = $(`tab-${tab}`);
    button.setAttribute("aria-selected", String(on));
    button.tabIndex = on ? 0 : -1;
    $(`panel-${tab}`).hidden = !on;
  }
  if (name !== "camera" && camera.running) stopCamera();
}

function setUpTabs() {
  const tabs = [$("tab-photo"), $("tab-camera")];
  tabs.forEach((tab, k) => {
    tab.addEventListener("click", () => selectTab(k ? "camera" : "photo"));
    tab.addEventListener("keydown", (event) => {
      if (event.key !== "ArrowLeft" && event.key !== "ArrowRight") return;
      const next = tabs[1 - k];
      next.focus();
      selectTab(next === tabs[0] ? "photo" : "camera");
    });
  });
  $("camera-toggle").addEventListener("click", () => (camera.running ? stopCamera() : startCamera()));
  $("camera-snap").addEventListener("click", snapFrame);
}

// Served with the certificate `serve --lan` made, the page explains the browser's warning once
// per certificate (a renewed one brings the warning back, and the note with it).
function showCertificateNote(fingerprint) {
  const key = "sudoku-lens-certificate-seen";
  let seen = null;
  try {
    seen = localStorage.getItem(key);
    localStorage.setItem(key, fingerprint);
  } catch (_) {
    // storage refused (private browsing): the note shows on each visit
  }
  if (seen === fingerprint) return;
  $("certificate-note").hidden = false;
  $("certificate-note-close").addEventListener("click", () => {
    $("certificate-note").hidden = true;
  });
}

async function loadLimits() {
  try {
    const response = await fetch("/api/health");
    const health = await response.json();
    if (health.max_upload_mb) {
      maxUploadBytes = health.max_upload_mb * 2 ** 20;
      $("max-mb").textContent = String(health.max_upload_mb);
    }
    if (health.self_signed_fingerprint) showCertificateNote(health.self_signed_fingerprint);
  } catch (_) {
    // keep the default limit; the server still enforces its own
  }
}

// The home-screen shortcut "Live camera" opens /#camera: straight into camera mode.
function openRequestedMode() {
  if (location.hash !== "#camera") return;
  selectTab("camera");
  startCamera();
}

setUpPhotoMode();
setUpTabs();
loadLimits();
openRequestedMode();
