set terminal svg size 860,480 dynamic font 'sans,12'
set output 'SDSC-BLUE-nuwt-cdf.svg'
set title 'SDSC-BLUE: per-user normalized wait (users with >= 2 jobs), perfect estimates'
set xlabel 'NUWT (total wait / total run time x size)'
set ylabel 'fraction of users with NUWT <= x'
set xrange [0:10.0]
set yrange [0:1]
set key outside right top
set grid
plot 'SDSC-BLUE-nuwt-cdf.dat' index 0 with steps lw 2 title 'fcfs', 'SDSC-BLUE-nuwt-cdf.dat' index 1 with steps lw 2 title 'aggressive', 'SDSC-BLUE-nuwt-cdf.dat' index 2 with steps lw 2 title 'easy', 'SDSC-BLUE-nuwt-cdf.dat' index 3 with steps lw 2 title 'conservative', 'SDSC-BLUE-nuwt-cdf.dat' index 4 with steps lw 2 title 'bf-fair', 'SDSC-BLUE-nuwt-cdf.dat' index 5 with steps lw 2 title 'tabu', 'SDSC-BLUE-nuwt-cdf.dat' index 6 with steps lw 2 dt 2 title 'tabu:safe'
