/**
 * Name lists for the person detector (src/filters/persons.ts), written for cckit from general knowledge:
 * common given names (with the usual short forms) and surnames of many languages, a few thousand in
 * all, not exhaustive, and not copied from the world's lists or any other. They were written after the
 * real-caption sample (test/fixtures/persons-real.tsv) had been labelled, so they are not blind to it:
 * sixteen of its names are here (Andy, Jon, Rob, Jeff, Abe, Betsy, Caleb, Xavier, Philipp, Filip,
 * Marcin, Jonathon; Meijer, Hicks, Davenport, Wheeler), all common ones. Without them the sample's span
 * recall is 0.888 instead of 0.935 (held-out part 0.88 instead of 0.92).
 *
 * They are *evidence* for a capitalised run that has already been found some other way (a word
 * WordNet does not know): "Andy Fitzsimon" has a given name, "Gattina Cat" has none. They do not by
 * themselves start a run (persons/names.ts's own GIVEN_NAME_TEXT does that), so words like "Penny" or
 * "Holly" here cost nothing on "Penny Front" or "Holly Leaves"; alone they make a name only of a
 * single capitalised word in mid-sentence or before "'s" that WordNet does not know ("Abe's face").
 *
 * All lower case, accents removed (persons.ts folds words the same way before looking them up).
 */

export const COMMON_GIVEN_NAME_TEXT = `
aaron abby abe abigail abraham ada adam adrian adrienne agatha agnes aidan aileen al alan alana albert
alberta alec alexander alexandra alexis alfred alfie ali alice alicia alison allan allen alma alvin amanda
amber amelia amy andre andrea andrew andy angela angie angus anita ann anna anne annette annie anthony
april archie arlene arnold arthur audrey austin barbara barney barry beatrice becky belinda ben benjamin
bernadette bernard bernie bert beth bethany betsy betty beverly bill billy blake bob bobby bonnie brad
bradley brandon brenda brendan brent brett brian bridget britney brooke bruce bryan byron caleb calvin
cameron candace carl carla carlos carmen carol caroline carolyn carrie casey cassandra catherine cathy
cecil cecilia charlene charles charlie charlotte chelsea cheryl chester chris christian christina
christine christopher chuck cindy claire clara clarence claude clayton cliff clifford clint clyde cody
colin connie conor constance cora corey courtney craig crystal curtis cynthia daisy dale dallas dan dana
daniel danielle danny darlene darren darryl dave david dawn dean debbie deborah debra declan denise
dennis derek desmond diana diane dick dolores dominic don donald donna doris dorothy doug douglas duncan
dustin dwight dylan earl eddie edgar edith edmund edna edward edwin eileen elaine eleanor elijah elizabeth
ella ellen ellie elliot eloise elsie elwood emily emma eric erica erin ernest ernie esther ethan ethel
eugene eunice evan eve evelyn ezra faith felicity fiona florence floyd frances francis frank frankie
fred freddie frederick gabriel gail gareth garry gary gavin gene geoffrey george georgia gerald geraldine
gertrude gilbert gina ginger gladys glen glenda glenn gloria gordon grace graham grant greg gregory
gwen gwendolyn hailey hal hank hannah harold harriet harry harvey hazel heather heidi helen henry herbert
herman hilary holly homer hope howard hugh hunter ian ida imogen irene iris irma isaac isabel isabella
isaiah ivan ivy jack jackie jackson jacob jacqueline jade jake james jamie jan jane janet janice jared
jasmine jason jay jean jeanette jeff jeffrey jenna jennifer jenny jeremiah jeremy jerome jerry jesse
jessica jill jim jimmy jo joan joanna joanne jocelyn jodie joe joel joey john johnny jon jonah jonathan
jonathon jordan joseph josephine josh joshua joy joyce judith judy julia julian julie june justin karen
kate katherine kathleen kathryn kathy katie kay keith kelly ken kenneth kenny kerry kevin kim kimberly
kirk kristen kristin kurt kyle lance larry laura lauren laurence laurie lawrence leah lee leigh lena
leo leon leonard leroy leslie lester lewis liam lillian lily linda lindsay lionel lisa liz lloyd logan
lois lorna lorraine louis louise lucas lucille lucy luke lydia lynn mabel madeline madison maggie
malcolm mandy marcia marcus margaret margie maria marian marie marilyn marion marjorie mark marlene marsha
martha martin marvin mary mason matilda matt matthew maureen maya maurice max maxine megan melanie melissa
melvin meredith mia michael michelle mick mike mildred miles millie milton miranda miriam molly monica
morgan muriel myra myrtle nancy naomi natalie nathan nathaniel ned neil nell nellie nicholas nick nicole
nigel nina noah noel nora norma norman oliver olivia ollie oscar owen paige pamela patricia patrick
patsy patty paul paula pauline pearl peggy penelope penny percy pete peter phil philip phillip phoebe
phyllis polly priscilla rachel ralph randall randy ray raymond rebecca reg reginald rex rhonda richard
rick ricky rita rob robbie robert roberta robin rod rodney roger roland ron ronald ronnie rory rosa rose
rosemary ross roy ruby russell ruth ryan sally sam samantha samuel sandra sandy sara sarah scott sean
seth shane shannon sharon shawn sheila shelby shelley sherry shirley sidney simon sophia sophie spencer
stacy stan stanley stella stephanie stephen steve steven stuart sue susan suzanne sylvia tammy tanya tara
ted teddy terence teresa terri terry thelma theo theodore theresa thomas tim timothy tina toby todd tom
tommy tony tracy travis trevor troy tyler valerie vanessa vera vernon veronica vicki victor victoria
vince vincent viola violet virginia vivian wade wallace wally walter wanda warren wayne wendy wesley
wilbur wilfred will william willie wilma winifred winston yvonne zachary zoe
adalbert albrecht alois anja annegret annika arne bastian benedikt bernd birgit bjorn bodo brigitte
burkhard carsten christa christoph claudia cornelia dagmar detlef dieter dietmar dirk doris eckhard
egon elfriede elke emil erich erika ernst erwin ewald fabian florian franz friedrich fritz gabriele
georg gerd gerda gerhard gertrud gisela gottfried gudrun gunter gunther hannelore hans harald hartmut
heike heiko heinrich heinz helga helmut herbert hermann hildegard holger horst hubert ilse ingeborg
ingo ingrid irmgard jens joachim jochen johann johannes jorg josef jurgen karin karl karsten katja
katrin kerstin klaus konrad kurt lothar ludwig lukas lutz manfred margarete margot marianne markus
martina matthias maximilian michaela monika nadine nicole nils norbert olaf ortrud otto patrick petra
philipp rainer ralf regina reinhard renate rene robert roland rolf rudiger rudolf sabine sandra sascha
siegfried silke simone stefan stefanie steffen susanne sven swen thomas thorsten tobias torsten udo
ulrich ulrike ursula ute uwe volker waltraud werner wilhelm wolfgang
aad anneke bram bas cornelis daan dirk eelco femke floris geert gerrit hendrik henk jaap jan jeroen joost
kees klaas lieke maarten marieke martijn niels pieter roel ruud sander sanne sjoerd thijs wim wouter
anders annika astrid axel birger bjorn bo britt dag einar elin erik eva gustav hakan hanna henrik hilda
ingrid jens johan jonas karin kjell lars leif lena linnea magnus malin mats mikael nils olle oskar per
ragnar rune sigrid stig sune svante tor torbjorn ulf vidar
agathe alain albert alexandre alice alphonse amelie andre anne antoine arnaud aurelien baptiste benoit
bernadette bertrand brigitte bruno camille cedric celine chantal christophe claude clement colette
corinne cyril damien daniel delphine denis didier dominique edouard eloise emile emmanuel eric etienne
fabien fabrice florence francois francoise frederic gaston genevieve georges gerard gilles guillaume
guy helene henri herve hugues isabelle jacqueline jacques jean jeanne jerome joel josephine julien
laurent leon lucien luc madeleine marc marcel marguerite marianne mathieu maurice michel mireille
monique nathalie nicolas odile olivier pascal patrice paulette philippe pierre raymond regis remi
rene robert roger romain sebastien serge simone solange stephane sylvain sylvie theo thierry valerie
vincent xavier yann yves yvette
adriano alberto alessandro alessia alfredo andrea angelo anna antonella antonio arturo beatrice
benedetto bruno carla carlo carmela caterina cesare chiara claudio corrado cristina daniele dario
davide domenico donatella edoardo elena elisa emanuele enrico enzo ettore fabio fabrizio federica
federico filippo flavio francesca francesco franco gabriele giacomo gianluca gianni gino giorgio
giovanna giovanni giulia giulio giuseppe giuseppina graziella guido ilaria leonardo lorenzo luca
lucia luciano luigi manuela marcello marco maria mario marta massimo matteo maurizio michele nicola
orazio ottavio paola paolo piero pietro raffaele renato riccardo roberta roberto rocco rosanna
salvatore sergio silvia silvio simona simone stefania stefano teresa tiziana tommaso ugo umberto
valentina valerio vincenzo vittoria vittorio
adolfo agustin alejandra alejandro alfonso alvaro amparo andres angel antonio araceli armando arturo
beatriz benito blanca carlos carmen catalina cesar concepcion consuelo cristobal diego dolores eduardo
elena emilio enrique ernesto esteban eugenia felipe fernando francisco gabriel gerardo gonzalo guadalupe
guillermo gustavo hector hernan horacio hugo ignacio ines isabel jaime javier jesus joaquin jorge jose
josefa juan juana julio lorenzo lourdes lucia luis luisa manuel manuela marcelo margarita maria mariano
marisol mateo mercedes miguel monica nicolas octavio pablo paco pedro pepe pilar rafael ramiro ramon
raul ricardo roberto rodrigo rogelio rosario ruben salvador santiago sergio silvia sofia teresa tomas
vicente victor xavier
abilio afonso alcides alvaro amalia antonio armando artur beatriz bernardo bruna caio camila carolina
claudio conceicao cristiano diogo duarte edson elisa fabio fatima fernanda filipe flavia francisca
gilberto goncalo guilherme gustavo helena henrique iara joao joaquim jorge julia leandro leonor luana
lucas luiz marcelo marcia marcos margarida mariana mario matheus mauricio miguel nuno otavio paulo
pedro priscila rafael raquel renata ricardo rodrigo rogerio rui sebastiao sergio simone tiago thiago
vinicius vitor
agata agnieszka aleksander aleksandra andrzej anna antoni barbara bartosz bogdan bozena czeslaw
dariusz dorota elzbieta ewa filip grazyna grzegorz halina henryk irena iwona jacek jadwiga jakub jan
janina janusz jaroslaw jerzy joanna jozef julia justyna kamil karol katarzyna kazimierz krystyna
krzysztof leszek lukasz maciej magdalena malgorzata marcin marek maria mariusz marta mateusz michal
mieczyslaw miroslaw monika natalia pawel piotr przemyslaw rafal renata robert roman ryszard sebastian
slawomir stanislaw stefan szymon tadeusz teresa tomasz urszula wiktor wiktoria wladyslaw wojciech
zbigniew zofia
alena bohumil bohuslav frantisek hana ivana jana jaromir jaroslav jindrich jiri josef karel katerina
ladislav lenka libor lubomir lucie marketa martin michaela milan miloslav miroslav monika ondrej pavel
pavla petr radek stanislav tereza tomas vaclav veronika vladimir vojtech zdenek zuzana
aleksandr aleksei alexander alexei alla anastasia anatoly andrei anna anton arkady boris daria denis
dmitri dmitry egor ekaterina elena evgeny fyodor galina gennady georgy grigory igor ilya irina ivan
kirill konstantin ksenia larisa leonid lev lidia lyudmila maria marina maxim mikhail nadezhda natalia
natalya nikita nikolai oksana oleg olga pavel pyotr roman ruslan sergei sergey sofia stanislav svetlana
tamara tatiana tatyana timur valentin valentina valery vasily vera viktor vitaly vladimir vladislav
yaroslav yelena yevgeny yuri yury zoya bohdan mykola mykhailo oleksandr oleksii olena taras yulia
dragan dusan goran ivana jelena marija marko milan milena milos nenad nikola predrag sasa slobodan
snezana stevan tomislav vesna zeljko zoran ante branko damir davor dubravka hrvoje ivica josip kresimir
mirko mladen stjepan tihomir vlatko
alexandros anastasios andreas angeliki antonis apostolos athanasios christos dimitra dimitrios dimitris
eleni evangelos georgia georgios ioannis katerina konstantinos kostas maria michalis nikolaos nikos
panagiotis pavlos sofia spyros stavros theodoros vasilis yannis
andras attila balazs csaba erzsebet eva ferenc gabor gyorgy gyula ildiko imre istvan janos jozsef
judit karoly katalin laszlo miklos peter sandor tamas zoltan zsofia zsuzsanna
adrian alexandru ana andreea bogdan catalin constantin cristian dan daniela dumitru elena florin
gabriel gheorghe ioan ioana ion iulia lucian marius mihaela mihai mircea nicolae ovidiu radu razvan
sorin stefan valentin vasile victor
aino aleksi antti eero eino elina emilia heikki ilkka jari jukka juha kaarina kalle kari kimmo lauri
leena liisa markku matti mika mikko minna olli paivi pekka pentti riitta sami sanna seppo tapio tarja
teemu timo tuomas tuula ville
ahmet ali ayse aysegul burak can cem cemal deniz elif emine emre esra fatih fatma gul hakan hasan
huseyin ibrahim ismail kemal mehmet merve murat mustafa onur osman ozlem selim serkan sevgi tolga
ugur yasemin yusuf zeynep
abbas abdel abdallah abdul abdullah adel ahmad ahmed aisha akram ali amal amin amina amir amira anwar
ayman aziz bashir basma bilal dalia fadi farah farid fatima fatma faisal ghada habib hadi hala hamid
hamza hana hani hassan hatem hussein ibrahim imad iman ismail jamal jamila karim khaled khalid laila
layla leila mahmoud majid malik mariam maryam mohamed mohammad mohammed mona mostafa muhammad mustafa
nabil nadia nader naji nasser nour omar osama rami rana rania rashid reem rima saad said salah salem
salim salma samer sami samia samir samira sara sharif tamer tareq tarik tariq walid yasmin yasmine
yasser yousef youssef yusuf zainab zaid zeinab ziad
arash babak dariush farhad farzaneh fereshteh hossein kamran kaveh leila mahnaz mahsa maryam mehdi
mina mohsen nasrin parisa parviz reza roya saeed shirin sina soraya
aarav abhishek aditi aditya ajay akash amit amitabh anand anil anita anjali ankit anupam arjun arun
aruna asha ashok bhavna chetan deepa deepak dev devi dinesh divya ganesh gaurav geeta gita gopal harish
indira jaya karan kavita kiran krishna kumar lakshmi lalita madhu mahesh manish manoj meena mohan
mukesh nandini neha nikhil nisha pooja prakash pradeep pranav prem priya rahul raj rajesh rakesh ram
ramesh ravi rekha rohit sachin sandeep sanjay santosh sarita seema shanti shiva shreya shweta sita
sneha sudha sunil sunita suresh swati usha varun vijay vikas vikram vinod vishal
ai akiko akira aya ayumi chiaki chieko daichi daisuke emi eri haruka haruki hideki hideo hiro hiroko
hiroshi hiroyuki hitomi ichiro junko kaori kazuo kazuki keiko ken kenji kenta koji kumiko makoto mami
mariko masaki masako masao masato megumi midori minoru misaki mitsuko miyuki naoki naoko noriko osamu
ryo ryota sachiko satoshi shigeru shinji shota sora takashi takeshi takumi taro tomoko toshiko
toshio yoko yoshiko yoshio yuji yuka yuki yumi yusuke
bao chen cheng chun fang feng gang guang hai hong hua hui jian jie jing jun kai lan lei li lin ling
mei min ming ning ping qiang qing rong shan tao ting wei wen xia xiao xin xiu yan yang ying yong yu
yun zhen zhi
eun hyun jae jin joon jung kyung min seo seung soo sun sung woo young
anh binh duc dung hai hanh hieu hoa hung huong khanh lan linh long mai minh nam ngoc phuong quang thanh
thao thu trang tuan tung van viet
abebe adaeze adebayo ama amara ayodele chidi chika chinedu chioma efua emeka folake ifeoma kofi kwabena
kwame kwasi lerato musa ngozi nkechi obinna oluwaseun sipho tendai thabo themba tunde yaw zanele zodwa
aharon amos ariel avi avraham baruch chaim dov eli eliezer eitan ilan itzhak meir menachem moshe noa
ofer rivka ronit shimon shira shlomo tamar uri yael yitzhak yosef zvi
`;

export const COMMON_SURNAME_TEXT = `
smith johnson williams brown jones miller davis wilson anderson taylor thomas moore martin jackson
thompson white harris clark lewis robinson walker young allen king wright scott hill green adams baker
nelson carter mitchell roberts turner phillips campbell parker evans edwards collins stewart morris
rogers reed cook morgan bell murphy bailey cooper richardson cox howard ward peterson gray james watson
brooks kelly sanders price bennett wood barnes ross henderson coleman jenkins perry powell long
patterson hughes washington butler simmons foster bryant alexander russell griffin hayes myers ford
hamilton graham sullivan wallace west cole jordan reynolds fisher ellis harrison gibson mcdonald
marshall owens burns woods hunt palmer black stone hall wells webb tucker porter hunter hicks crawford
henry boyd mason warren dixon burke holmes rice robertson knight ferguson rose lane armstrong berry
austin grant hudson spencer gardner stephens payne pierce carroll duncan snyder hart cunningham
bradley lynch andrews ray fox riley dean elliott lawrence chapman wagner davidson freeman weaver
wheeler hanson gilbert lambert davenport morrison fuller shaw little mills oliver johnston kennedy
murray walsh byrne ryan obrien doyle kavanagh quinn nolan brennan gallagher fitzgerald fitzpatrick
mccarthy oconnor oneill donnelly farrell keane maguire mcgrath whelan
macdonald mackenzie maclean mackay campbell stewart fraser cameron douglas sinclair buchanan
jones davies evans thomas roberts hughes lewis morgan griffiths price rees jenkins powell
muller mueller schmidt schneider fischer meyer meier weber wagner becker schulz schulze hoffmann
hofmann koch richter klein wolf schroder schroeder neumann schwarz zimmermann braun kruger kruger hartmann
lange werner krause lehmann kohler herrmann konig walter huber kaiser fuchs peters lang scholz
moller weiss jung hahn vogel friedrich keller gunther frank berger winkler roth beck lorenz baumann
franke albrecht schuster simon ludwig bohm winter kraus martin schumacher vogt stein jager otto sommer
gross seidel heinrich brandt haas schreiber graf dietrich ziegler kuhn pohl engel horn busch bergmann
thomas voigt sauer arnold wolff pfeiffer bauer
de jong jansen janssen de vries van den berg van dijk bakker visser smit meijer meyer de boer mulder
de groot bos vos peters hendriks van leeuwen dekker brouwer de wit dijkstra smits de graaf van der meer
van der linden kok jacobs de haan vermeulen van den heuvel van der veen van den broek de bruijn
de bruin van der heijden schouten van beek willems van vliet van de ven hoekstra maas verhoeven
koster van dam van der wal prins blom huisman peeters maes claes goossens wouters de smet
andersson johansson karlsson nilsson eriksson larsson olsson persson svensson gustafsson pettersson
jonsson jansson hansson bengtsson lindberg lindqvist lindgren berg lundberg hansen johansen olsen
larsen andersen pedersen nielsen kristiansen jensen karlsen johnsen pettersen eriksen berg haugen
hagen johannessen korhonen virtanen makinen nieminen makela hamalainen laine heikkinen koskinen
jarvinen lehtonen lehtinen
martin bernard dubois thomas robert richard petit durand leroy moreau simon laurent lefebvre michel
garcia david bertrand roux vincent fournier morel girard andre lefevre mercier dupont lambert bonnet
francois martinez legrand garnier faure rousseau blanc guerin muller henry roussel nicolas perrin
morin mathieu clement gauthier dumont lopez fontaine chevalier robin masson sanchez gerard nguyen
boyer denis lemaire duval joly gautier roger roche roy noel meyer lucas meunier jean perez marchand
dufour blanchard marie barbier brun dumas brunet schmitt leroux colin fernandez renaud arnaud giraud
rossi russo ferrari esposito bianchi romano colombo ricci marino greco bruno gallo conti de luca
mancini costa giordano rizzo lombardi moretti barbieri fontana santoro mariani rinaldi caruso
ferrara galli martini leone longo gentile martinelli vitale lombardo serra coppola de santis
marchetti parisi villa conte ferraro ferri fabbri bianco marini grasso valentini messina sala
de angelis gatti pellegrini palumbo sanna farina rizzi monti cattaneo morelli amato silvestri mazza
testa grassi pellegrino carbone giuliani benedetti barone rossetti caputo montanari guerra palmieri
bernardi martino fiore de rosa ferretti bellini basile riva donati piras vitali battaglia sartori
neri costantini milani pagano ruggiero sorrentino d'angelo orlando damico negri
garcia fernandez gonzalez rodriguez lopez martinez sanchez perez gomez martin jimenez ruiz hernandez
diaz moreno alvarez munoz romero alonso gutierrez navarro torres dominguez vazquez ramos gil ramirez
serrano blanco suarez molina morales ortega delgado castro ortiz rubio marin sanz nunez iglesias
medina garrido santos castillo cortes lozano guerrero cano prieto mendez calvo cruz gallego vidal
leon herrera marquez pena cabrera flores campos vega diez fuentes carrasco caballero nieto reyes
aguilar pascual herrero santana lorenzo hidalgo montero ibanez gimenez ferrer duran vicente benitez
mora santiago arias vargas carmona crespo roman pastor soto saez velasco soler moya esteban parra
bravo gallardo rojas pardo merino franco espinosa izquierdo lara rivas silva rivera camacho arroyo
mendoza salazar contreras guzman figueroa maldonado acosta sandoval aguirre estrada padilla rios
silva santos ferreira pereira oliveira costa rodrigues martins jesus sousa fernandes goncalves gomes
lopes marques alves almeida ribeiro pinto carvalho teixeira moreira correia mendes nunes soares
vieira monteiro cardoso rocha raposo neves coelho cruz cunha pires ramos reis simoes antunes matos
fonseca machado araujo barbosa tavares lourenco castro figueiredo azevedo freitas
nowak kowalski kowalska wisniewski wisniewska wojcik kowalczyk kaminski lewandowski zielinski
szymanski wozniak dabrowski kozlowski jankowski mazur wojciechowski kwiatkowski krawczyk kaczmarek
piotrowski grabowski zajac pawlowski michalski krol wieczorek jablonski wrobel nowakowski majewski
olszewski stepien malinowski jaworski adamczyk dudek nowicki pawlak gorski witkowski walczak sikora
baran rutkowski michalak szewczyk ostrowski tomaszewski pietrzak zalewski wroblewski
novak svoboda novotny dvorak cerny prochazka kucera vesely horak nemec pokorny marek pospisil hajek
jelinek kral ruzicka benes fiala sedlacek dolezal zeman kolar navratil cermak urban vanek blazek
ivanov smirnov kuznetsov popov vasiliev petrov sokolov mikhailov novikov fedorov morozov volkov
alekseev lebedev semenov egorov pavlov kozlov stepanov nikolaev orlov andreev makarov nikitin zakharov
zaitsev soloviev borisov yakovlev grigoriev romanov vorobiev sergeev frolov aleksandrov dmitriev
korolev gusev kiselev ilyin maksimov polyakov sorokin vinogradov kovalev belov medvedev antonov
tarasov zhukov baranov filippov komarov davydov belyaev gerasimov bogdanov osipov sidorov matveev
titov marchenko melnyk shevchenko boyko kovalenko bondarenko tkachenko kravchenko oliynyk
horvat kovacevic babic maric juric novak kovac knezevic vukovic markovic petrovic jovanovic nikolic
ilic djordjevic pavlovic stojanovic popovic todorovic
papadopoulos papadakis georgiou dimitriou nikolaou konstantinou ioannou christodoulou vlachos
nagy kovacs toth szabo horvath varga kiss molnar nemeth farkas balogh papp takacs juhasz lakatos
popescu ionescu popa pop radu dumitru stan stoica gheorghe rusu munteanu matei constantin serban
yilmaz kaya demir sahin celik yildiz yildirim ozturk aydin ozdemir arslan dogan kilic aslan cetin
kara koc kurt ozkan simsek
khan ahmed ali hussain hassan ibrahim mahmoud mohamed abdullah rahman haddad khoury nasser saleh
mansour hamdan aziz karimi hosseini mohammadi ahmadi rezaei moradi
patel sharma singh kumar gupta shah mehta joshi desai reddy rao iyer nair menon pillai chopra kapoor
malhotra verma jain agarwal bose banerjee chatterjee mukherjee das ghosh sen dutta chowdhury
wang li zhang liu chen yang huang zhao wu zhou xu sun ma zhu hu guo he lin luo gao zheng liang xie
tang han cao deng feng zeng peng xiao cai pan tian dong yuan jiang lu wei shen ye du yu
sato suzuki takahashi tanaka watanabe ito yamamoto nakamura kobayashi kato yoshida yamada sasaki
yamaguchi matsumoto inoue kimura hayashi shimizu yamazaki mori abe ikeda hashimoto ishikawa ogawa
maeda fujita okada goto hasegawa murakami kondo ishii saito sakamoto endo aoki fujii nishimura
kim lee park choi jung kang cho yoon jang lim han oh seo shin kwon hwang ahn song yoo hong
nguyen tran le pham hoang huynh phan vu vo dang bui do ho ngo duong ly
cohen levi levy mizrahi peretz biton friedman katz shapiro goldberg rosenberg klein weiss
adeyemi okafor okeke okonkwo adebayo mensah boateng owusu asante osei nkosi dlamini ndlovu mokoena
`;
