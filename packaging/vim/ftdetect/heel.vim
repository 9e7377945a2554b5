" SPDX-License-Identifier: MIT
" heel sandbox policies (heel(5)).
autocmd BufRead,BufNewFile *.heel setfiletype heel
