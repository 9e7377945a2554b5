" SPDX-License-Identifier: MIT
" Vim syntax file for heel sandbox policies (heel(5)).
if exists("b:current_syntax")
  finish
endif

syn keyword heelStatement heel isolation include grant deny protect unprotect allow network limit nice io-priority env workdir ipc python on seccomp sbpl capability readonly
syn keyword heelWord strict default permissive r rw rx rwx optional allow-all allow-private audit daily decide pass set exec positional arg string int bool path timeout venv packages allow-pip-install yes no linux macos windows gpu unix-sockets mach-lookup errno
syn keyword heelSet user-home credentials cloud-config browser-data keychains shell-history package-credentials shared-temp host-run
syn keyword heelLimit memory cpu processes open-files file-size stack core utility background
syn match heelNumber "\<\d\+\(B\|KiB\|MiB\|GiB\|TiB\|KB\|MB\|GB\|ms\|s\|m\|h\)\?\>"
syn match heelErrno "\<E[A-Z0-9]\+\>"
syn match heelPreset "<[a-z0-9/_-]\+>"
syn match heelVar "\${[A-Z_][A-Z0-9_]*}" contained
syn match heelEscape "\\[\"\\nt]\|\\x\x\x" contained
syn region heelString start=+"+ skip=+\\\\\|\\"+ end=+"+ oneline contains=heelVar,heelEscape
syn match heelComment "#.*$" contains=heelTodo
syn keyword heelTodo TODO FIXME XXX contained
syn match heelBrace "[{};]"

hi def link heelStatement Statement
hi def link heelWord Keyword
hi def link heelSet Type
hi def link heelLimit Type
hi def link heelNumber Number
hi def link heelErrno Constant
hi def link heelPreset Include
hi def link heelVar PreProc
hi def link heelEscape SpecialChar
hi def link heelString String
hi def link heelComment Comment
hi def link heelTodo Todo
hi def link heelBrace Delimiter

let b:current_syntax = "heel"
